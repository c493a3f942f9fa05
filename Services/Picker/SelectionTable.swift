import Foundation
import GRDB
import LightboxStorage

/// Limited apps' selections, kept in the catalog's database as lightbox-auth last answered them, so
/// queries inside a selection join a table (any size: no SQLite variable limit, nothing per call on
/// the wire). Rows are replaced only by a newer answer (`version`), whatever order answers arrive in.
struct SelectionTable: Sendable {
    let database: DatabasePool

    /// Stores `assets` as `app`'s selection at `version`, unless a newer one is already stored.
    /// Returns whether it was stored.
    @discardableResult
    func replace(app: String, with assets: [String], version: Int64) async throws -> Bool {
        try await database.write { db in
            let stored = try Self.version(of: app, db)
            if let stored, stored > version { return false }
            if stored == version { return true }
            try db.execute(sql: "DELETE FROM appSelection WHERE app = ?", arguments: [app])
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO appSelection (app, asset) VALUES (?, ?)")
            var size = 0
            for asset in assets {
                try insert.execute(arguments: [app, asset])
                size += db.changesCount
            }
            try db.execute(sql: "INSERT OR REPLACE INTO appSelectionVersion (app, version, size) VALUES (?, ?, ?)",
                           arguments: [app, version, size])
            return true
        }
    }

    /// Which of `assets` are in `app`'s selection.
    func members(of app: String, among assets: [String]) async throws -> Set<String> {
        guard !assets.isEmpty else { return [] }
        return try await database.read(try Members(app: app, assets: assets))
    }

    /// Which of some assets are in an app's selection, in one query (the list travels as one JSON
    /// value): a point read for a few.
    struct Members: DatabaseQuery {
        let app: String
        let count: Int
        let list: String

        init(app: String, assets: [String]) throws {
            self.app = app
            count = assets.count
            list = String(decoding: try JSONEncoder().encode(assets), as: UTF8.self)
        }

        var isPointRead: Bool { Self.isPointRead(keyCount: count) }

        func fetch(_ db: Database) throws -> Set<String> {
            Set(try String.fetchAll(db.cachedStatement(sql: """
                SELECT asset FROM appSelection WHERE app = ? AND asset IN (SELECT value FROM json_each(?))
                """), arguments: [app, list]))
        }
    }

    static func version(of app: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM appSelectionVersion WHERE app = ?"), arguments: [app])
    }

    /// How many assets `app`'s selection holds (0 when none is stored).
    static func size(of app: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT size FROM appSelectionVersion WHERE app = ?"), arguments: [app]) ?? 0
    }

    /// Below this many assets a selection is read whole and sorted; above it, the library is walked
    /// in order and each asset looked up in the selection, which stops as soon as a page is full.
    static let smallSelection = 2_000

    /// The condition "this asset is in `app`'s selection", for queries on `asset`, in the form that
    /// suits a selection of `size` assets.
    static func contains(app: String, size: Int) -> SQLExpression {
        if size <= smallSelection {
            return SQL(sql: "identifier IN (SELECT asset FROM appSelection WHERE app = ?)", arguments: [app]).sqlExpression
        }
        return SQL(sql: "EXISTS (SELECT 1 FROM appSelection WHERE appSelection.app = ? AND appSelection.asset = \"asset\".identifier)",
                   arguments: [app]).sqlExpression
    }
}

import Foundation
import GRDB

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
            let stored = try Int64.fetchOne(db, sql: "SELECT version FROM appSelectionVersion WHERE app = ?", arguments: [app])
            if let stored, stored > version { return false }
            if stored == version { return true }
            try db.execute(sql: "DELETE FROM appSelection WHERE app = ?", arguments: [app])
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO appSelection (app, asset) VALUES (?, ?)")
            for asset in assets { try insert.execute(arguments: [app, asset]) }
            try db.execute(sql: "INSERT OR REPLACE INTO appSelectionVersion (app, version) VALUES (?, ?)", arguments: [app, version])
            return true
        }
    }

    /// Which of `assets` are in `app`'s selection (one query; the list travels as one JSON value).
    func members(of app: String, among assets: [String]) async throws -> Set<String> {
        guard !assets.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(assets), as: UTF8.self)
        return try await database.read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT asset FROM appSelection WHERE app = ? AND asset IN (SELECT value FROM json_each(?))
                """, arguments: [app, list]))
        }
    }

    static func version(of app: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT version FROM appSelectionVersion WHERE app = ?", arguments: [app])
    }

    /// The condition "this asset is in `app`'s selection", for queries on `asset`.
    static func contains(app: String) -> SQLExpression {
        SQL(sql: "identifier IN (SELECT asset FROM appSelection WHERE app = ?)", arguments: [app]).sqlExpression
    }
}

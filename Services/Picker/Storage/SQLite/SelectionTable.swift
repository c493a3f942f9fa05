import Foundation
import GRDB
import LightboxStorage

/// Limited apps' selections, kept in the catalog's database as lightbox-auth last answered them, so
/// queries inside a selection join a table (any size: no SQLite variable limit, nothing per call on
/// the wire). Rows are replaced only by a newer answer (`version`), whatever order answers arrive in.
/// A selection holds assets (`appSelection`) and albums it follows (`appSelectionAlbum`): an album's
/// members are joined from `albumAsset` as they are when read, so what is added to the album later
/// is seen and what is taken out is not, and no member list is ever copied per app.
struct SelectionTable: SelectionStorage {
    let database: DatabasePool

    /// Stores `assets` and `albums` as `app`'s selection at `version`, unless a newer one is already
    /// stored. Returns whether it was stored.
    @discardableResult
    func replace(app: String, with assets: [String], albums: [String] = [], version: Int64) async throws -> Bool {
        try await database.write { db in
            let stored = try Self.version(of: app, db)
            if let stored, stored > version { return false }
            if stored == version { return true }
            // The albums it began and stopped following, for its change watchers; none the first
            // time the picker stores the app's selection, which it may have followed all along.
            if stored != nil {
                let before = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT album FROM appSelectionAlbum WHERE app = ?"),
                                                     arguments: [app]))
                for (kind, album) in LibraryChangeLog.follows(before: before, after: Set(albums)) {
                    try LibraryChangeLog.record(kind, album: album, app: app, in: db)
                }
            }
            try db.execute(sql: "DELETE FROM appSelection WHERE app = ?", arguments: [app])
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO appSelection (app, asset) VALUES (?, ?)")
            var size = 0
            for asset in assets {
                try insert.execute(arguments: [app, asset])
                size += db.changesCount
            }
            try db.execute(sql: "DELETE FROM appSelectionAlbum WHERE app = ?", arguments: [app])
            let follow = try db.cachedStatement(sql: "INSERT OR IGNORE INTO appSelectionAlbum (app, album) VALUES (?, ?)")
            for album in albums {
                try follow.execute(arguments: [app, album])
            }
            try db.execute(sql: "INSERT OR REPLACE INTO appSelectionVersion (app, version, size) VALUES (?, ?, ?)",
                           arguments: [app, version, size])
            return true
        }
    }

    func assets(inAlbum album: String) async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT asset FROM albumAsset WHERE album = ? ORDER BY asset"), arguments: [album])
        }
    }

    /// Which of `assets` are in `app`'s selection: chosen, or in an album it follows.
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
                SELECT asset FROM appSelection WHERE app = ?1 AND asset IN (SELECT value FROM json_each(?2))
                UNION
                SELECT asset FROM albumAsset WHERE asset IN (SELECT value FROM json_each(?2))
                    AND album IN (SELECT album FROM appSelectionAlbum WHERE app = ?1)
                """), arguments: [app, list]))
        }
    }

    static func version(of app: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM appSelectionVersion WHERE app = ?"), arguments: [app])
    }

    /// How many assets `app`'s selection holds (0 when none is stored), not counting its albums'.
    static func size(of app: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT size FROM appSelectionVersion WHERE app = ?"), arguments: [app]) ?? 0
    }

    /// Whether `app`'s selection follows any album (a point read).
    static func followsAlbums(_ app: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM appSelectionAlbum WHERE app = ? LIMIT 1"), arguments: [app]) ?? false
    }

    /// How many memberships the albums `app` follows hold now, counted on `albumAsset`'s key (an
    /// asset in two of them, or also chosen, counts more than once: this only sizes a query).
    static func albumMembers(of app: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM albumAsset WHERE album IN (SELECT album FROM appSelectionAlbum WHERE app = ?)
            """), arguments: [app]) ?? 0
    }

    /// Below this many assets a selection is read whole and sorted; above it, the library is walked
    /// in order and each asset looked up in the selection, which stops as soon as a page is full.
    static let smallSelection = 2_000

    /// The condition "this asset is in `app`'s selection", for queries on `asset`, in the form that
    /// suits a selection of `size` assets (its albums' members included); the albums are joined only
    /// when it follows some.
    static func contains(app: String, size: Int, followsAlbums: Bool = false) -> SQLExpression {
        switch (size <= smallSelection, followsAlbums) {
        case (true, false):
            return SQL(sql: "identifier IN (SELECT asset FROM appSelection WHERE app = ?)", arguments: [app]).sqlExpression
        case (false, false):
            return SQL(sql: "EXISTS (SELECT 1 FROM appSelection WHERE appSelection.app = ? AND appSelection.asset = \"asset\".identifier)",
                       arguments: [app]).sqlExpression
        case (true, true):
            return SQL(sql: """
                identifier IN (SELECT asset FROM appSelection WHERE app = ? UNION \
                SELECT asset FROM albumAsset WHERE album IN (SELECT album FROM appSelectionAlbum WHERE app = ?))
                """, arguments: [app, app]).sqlExpression
        case (false, true):
            // Each asset walked is looked up by the index on albumAsset.asset, then its albums
            // checked against the app's few (read once).
            return SQL(sql: """
                (EXISTS (SELECT 1 FROM appSelection WHERE appSelection.app = ? AND appSelection.asset = "asset".identifier) \
                OR EXISTS (SELECT 1 FROM albumAsset WHERE albumAsset.asset = "asset".identifier \
                AND albumAsset.album IN (SELECT album FROM appSelectionAlbum WHERE appSelectionAlbum.app = ?)))
                """, arguments: [app, app]).sqlExpression
        }
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Albums in SQLite (`album`, `albumAsset`): one `album` change row per membership change, and a row
/// per asset that joined or left.
extension SQLiteCatalogStorage {
    func albums() async throws -> [Album] {
        try await database.detachedRead { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT album, COUNT(*) FROM albumAsset GROUP BY album"))
            while let row = try rows.next() { counts[row[0]] = row[1] }
            return try Album.fetchAll(positionally: db.cachedStatement(sql: Album.inOrder)).map { album in
                var album = album
                album.assetCount = counts[album.identifier, default: 0]
                return album
            }
        }
    }

    func album(_ identifier: String) async throws -> Album? {
        try await database.detachedRead { db in
            try Album.fetchOne(positionally: db.cachedStatement(sql: Album.byIdentifier), arguments: [identifier])
        }
    }

    func insert(_ album: Album) async throws {
        try await database.write { db in
            try db.execute(sql: "INSERT INTO album (identifier, title, createdAt) VALUES (?, ?, ?)",
                           arguments: [album.identifier, album.title, album.createdAt])
        }
    }

    func setMembership(of assets: [String], in album: String, isAdding: Bool) async throws -> Int {
        try await database.write { db in
            var changed = 0
            let statement = try isAdding
                ? db.cachedStatement(sql: "INSERT OR IGNORE INTO albumAsset (album, asset, addedAt) VALUES (?, ?, ?)")
                : db.cachedStatement(sql: "DELETE FROM albumAsset WHERE album = ? AND asset = ?")
            let now = Date()
            for asset in assets {
                let arguments: StatementArguments = isAdding ? [album, asset, now] : [album, asset]
                try statement.execute(arguments: arguments)
                guard db.changesCount > 0 else { continue }
                changed += 1
                try LibraryChangeLog.record(isAdding ? .addedToAlbum : .removedFromAlbum, asset: asset, album: album, in: db)
            }
            if changed > 0 { try LibraryChangeLog.record(.album, album: album, in: db) }
            return changed
        }
    }
}

extension Catalog {
    /// The assets of `album`, as a page's condition.
    static func inAlbum(_ album: String) -> SQLExpression {
        SQL(sql: "identifier IN (SELECT asset FROM albumAsset WHERE album = ?)", arguments: [album]).sqlExpression
    }
}

import Foundation
import LightboxProtocol
import PostgresNIO

/// Albums in PostgreSQL (`album`, `albumAsset`): one `album` change per membership change, and one
/// per asset that joined or left.
extension PostgresCatalogStorage {
    func albums() async throws -> [Album] {
        try await rows("read the albums", """
            SELECT identifier, title, createdAt, (SELECT COUNT(*) FROM albumAsset WHERE albumAsset.album = album.identifier)
            FROM album ORDER BY createdAt, identifier
            """) { row in
            let (identifier, title, createdAt, count) = try row.decode((String, String, Date, Int64).self)
            return Album(identifier: identifier, title: title, createdAt: createdAt, assetCount: Int(count))
        }
    }

    func album(_ identifier: String) async throws -> Album? {
        try await rows("read an album", "SELECT identifier, title, createdAt FROM album WHERE identifier = \(identifier)") { row in
            let (identifier, title, createdAt) = try row.decode((String, String, Date).self)
            return Album(identifier: identifier, title: title, createdAt: createdAt)
        }.first
    }

    func insert(_ album: Album) async throws {
        let logger = self.logger
        _ = try await postgres.transaction("create an album") { connection in
            try await connection.query("""
                INSERT INTO album (identifier, title, createdAt) VALUES (\(album.identifier), \(album.title), \(album.createdAt))
                """, logger: logger)
        }
    }

    func setMembership(of assets: [String], in album: String, isAdding: Bool) async throws -> Int {
        try await writingChanges(isAdding ? "add assets to an album" : "take assets out of an album") { connection, changes in
            var changed = 0
            let now = Date()
            for asset in assets {
                let rows = isAdding
                    ? try await connection.query("""
                        INSERT INTO albumAsset (album, asset, addedAt) SELECT \(album), \(asset), \(now)
                        WHERE EXISTS (SELECT 1 FROM asset WHERE identifier = \(asset)) AND EXISTS (SELECT 1 FROM album WHERE identifier = \(album))
                        ON CONFLICT DO NOTHING RETURNING asset
                        """, logger: logger)
                    : try await connection.query("DELETE FROM albumAsset WHERE album = \(album) AND asset = \(asset) RETURNING asset", logger: logger)
                guard try await Self.exists(rows) else { continue }
                changed += 1
                changes.append(isAdding ? .addedToAlbum : .removedFromAlbum, asset: asset, album: album)
            }
            if changed > 0 { changes.append(.album, album: album) }
            return changed
        }
    }
}

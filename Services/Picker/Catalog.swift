import Foundation
import GRDB
import LightboxProtocol

/// The picker's view of the library: assets by identifier and in library order (newest first).
struct Catalog: Sendable {
    let database: DatabasePool
    let originals: URL

    func allAssets() async throws -> [AssetRecord] {
        try await database.read { db in
            try AssetRecord.order(Column("creationDate").desc, Column("identifier")).fetchAll(db)
        }
    }

    func assets(_ identifiers: [String]) async throws -> [String: AssetRecord] {
        try await database.read { db in
            let records = try AssetRecord.filter(keys: identifiers).fetchAll(db)
            return Dictionary(uniqueKeysWithValues: records.map { ($0.identifier, $0) })
        }
    }

    func asset(_ identifier: String) async throws -> AssetRecord? {
        try await database.read { db in try AssetRecord.fetchOne(db, key: identifier) }
    }

    func asset(withContentHash hash: String) async throws -> AssetRecord? {
        try await database.read { db in try AssetRecord.filter(Column("contentHash") == hash).fetchOne(db) }
    }

    func insert(_ record: AssetRecord) async throws {
        try await database.write { db in try record.insert(db, onConflict: .ignore) }
    }

    /// The original's location, built only from the catalog's own relative path.
    func originalURL(of asset: AssetRecord) -> URL {
        originals.appendingPathComponent(asset.storedPath)
    }
}

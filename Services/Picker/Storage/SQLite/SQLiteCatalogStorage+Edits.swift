import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Apps' edits in SQLite (`assetEdit`), each save or revert a `changed` row in the same transaction.
extension SQLiteCatalogStorage {
    func edit(of asset: String) async throws -> AssetEdit? {
        try database.pointRead { db in try AssetEdit.fetch(db, asset: asset) }
    }

    func edits(of assets: [String]) async throws -> [AssetEdit] {
        try await database.detachedRead { db in
            try Row.fetchAll(db, sql: "SELECT \(AssetEdit.columns) FROM assetEdit WHERE asset IN (SELECT value FROM json_each(?))",
                             arguments: [String(decoding: try JSONEncoder().encode(assets), as: UTF8.self)]).map(AssetEdit.init(row:))
        }
    }

    func save(_ edit: AssetEdit) async throws -> (asset: AssetRecord, replaced: AssetEdit?)? {
        try await database.write { db in
            guard let asset = try Catalog.asset(db, edit.asset) else { return nil }
            let earlier = try AssetEdit.fetch(db, asset: edit.asset)
            try db.execute(sql: "INSERT OR REPLACE INTO assetEdit (\(AssetEdit.columns)) VALUES (\(AssetEdit.placeholders))",
                           arguments: edit.arguments)
            try LibraryChangeLog.record(.changed, asset: edit.asset, in: db)
            return (asset, earlier)
        }
    }

    func revert(_ identifier: String) async throws -> (asset: AssetRecord, edit: AssetEdit)? {
        try await database.write { db in
            guard let asset = try Catalog.asset(db, identifier), let edit = try AssetEdit.fetch(db, asset: identifier) else { return nil }
            try db.execute(sql: "DELETE FROM assetEdit WHERE asset = ?", arguments: [identifier])
            try LibraryChangeLog.record(.changed, asset: identifier, in: db)
            return (asset, edit)
        }
    }
}

extension Catalog {
    /// The asset as its current version, read inside a read the caller makes (with the token that names it).
    static func currentVersion(_ db: Database, _ identifier: String) throws -> AssetRecord? {
        guard let original = try Self.asset(db, identifier) else { return nil }
        return try AssetEdit.fetch(db, asset: identifier)?.currentVersion(of: original) ?? original
    }
}

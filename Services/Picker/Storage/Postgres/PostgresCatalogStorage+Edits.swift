import Foundation
import LightboxProtocol
import PostgresNIO

/// Apps' edits in PostgreSQL (`assetEdit`), each save or revert a `changed` row in the same transaction.
extension PostgresCatalogStorage {
    func edit(of asset: String) async throws -> AssetEdit? {
        try await edits(of: [asset]).first
    }

    func edits(of assets: [String]) async throws -> [AssetEdit] {
        guard !assets.isEmpty else { return [] }
        return try await rows("read apps' edits", "SELECT \(unescaped: AssetEdit.postgresColumns) FROM assetEdit WHERE asset = ANY(\(assets))",
                              AssetEdit.init(postgres:))
    }

    /// The edit of `asset`, read in the caller's transaction.
    static func edit(of asset: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> AssetEdit? {
        try await first(connection.query("SELECT \(unescaped: AssetEdit.postgresColumns) FROM assetEdit WHERE asset = \(asset)", logger: logger),
                        AssetEdit.init(postgres:))
    }

    /// The asset, locked until the caller's transaction ends.
    static func lockedAsset(_ identifier: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> AssetRecord? {
        try await first(connection.query("SELECT \(unescaped: AssetRecord.postgresColumns) FROM asset WHERE identifier = \(identifier) FOR UPDATE",
                                         logger: logger), AssetRecord.init(postgres:))
    }

    func save(_ edit: AssetEdit) async throws -> (asset: AssetRecord, replaced: AssetEdit?)? {
        try await writingChanges("save an app's edit") { connection, changes in
            guard let asset = try await Self.lockedAsset(edit.asset, connection, logger) else { return nil }
            let earlier = try await Self.edit(of: edit.asset, connection, logger)
            try await connection.query("""
                INSERT INTO assetEdit (\(unescaped: AssetEdit.postgresColumns)) VALUES (\(edit.asset), \(edit.contentHash), \(edit.storedPath),
                    \(edit.type.identifier), \(edit.pixelWidth.map(Int32.init)), \(edit.pixelHeight.map(Int32.init)), \(edit.duration),
                    \(edit.fileSize), \(edit.properties), \(edit.app), \(edit.appName), \(edit.adjustment.format), \(edit.adjustment.version),
                    \(ByteBuffer(data: edit.adjustment.data)), \(edit.editedAt))
                ON CONFLICT (asset) DO UPDATE SET contentHash = EXCLUDED.contentHash, storedPath = EXCLUDED.storedPath, type = EXCLUDED.type,
                    pixelWidth = EXCLUDED.pixelWidth, pixelHeight = EXCLUDED.pixelHeight, duration = EXCLUDED.duration,
                    fileSize = EXCLUDED.fileSize, properties = EXCLUDED.properties, app = EXCLUDED.app, appName = EXCLUDED.appName,
                    adjustmentFormat = EXCLUDED.adjustmentFormat, adjustmentVersion = EXCLUDED.adjustmentVersion,
                    adjustmentData = EXCLUDED.adjustmentData, editedAt = EXCLUDED.editedAt
                """, logger: logger)
            changes.append(.changed, asset: edit.asset)
            return (asset, earlier)
        }
    }

    func revert(_ identifier: String) async throws -> (asset: AssetRecord, edit: AssetEdit)? {
        try await writingChanges("revert an app's edit") { connection, changes in
            guard let asset = try await Self.lockedAsset(identifier, connection, logger),
                  let edit = try await Self.edit(of: identifier, connection, logger) else { return nil }
            try await connection.query("DELETE FROM assetEdit WHERE asset = \(identifier)", logger: logger)
            changes.append(.changed, asset: identifier)
            return (asset, edit)
        }
    }
}

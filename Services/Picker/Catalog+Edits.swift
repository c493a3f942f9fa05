import Foundation
import GRDB
import LightboxProtocol

/// Apps' edits in the catalog (`AssetEdit`): the current version beside the original. Saving or
/// reverting one is a library change (`changed`) written in the same transaction; the files an
/// edit no longer uses are removed after it commits.
extension Catalog {
    func edit(of asset: String) async throws -> AssetEdit? {
        try database.pointRead { db in try AssetEdit.fetch(db, asset: asset) }
    }

    /// The asset as `version` asks for it: its edit (when it has one) for `current`, else the original.
    func version(_ version: ImageVersion, of asset: AssetRecord) async throws -> AssetRecord {
        guard version == .current, let edit = try await edit(of: asset.identifier) else { return asset }
        return edit.currentVersion(of: asset)
    }

    /// The assets by identifier as their current versions (an app's edit in place of the original
    /// where there is one): what a pick delivers, as PHPicker delivers the edited photo.
    func currentVersions(of identifiers: [String]) async throws -> [String: AssetRecord] {
        var found = try await assets(identifiers)
        let edits = try await database.detachedRead { db in
            try Row.fetchAll(db, sql: "SELECT \(AssetEdit.columns) FROM assetEdit WHERE asset IN (SELECT value FROM json_each(?))",
                             arguments: [String(decoding: try JSONEncoder().encode(identifiers), as: UTF8.self)]).map(AssetEdit.init(row:))
        }
        for edit in edits { found[edit.asset] = found[edit.asset].map(edit.currentVersion(of:)) }
        return found
    }

    /// The asset as its current version, read inside a read the caller makes (with the token that names it).
    static func currentVersion(_ db: Database, _ identifier: String) throws -> AssetRecord? {
        guard let original = try Self.asset(db, identifier) else { return nil }
        return try AssetEdit.fetch(db, asset: identifier)?.currentVersion(of: original) ?? original
    }

    /// Makes `edit` the asset's current version (its file stored and durable already) and records
    /// the change, in one transaction; the edit it replaces loses its files. `notFound` when the
    /// asset was removed meanwhile (the new file is removed then).
    func save(_ edit: AssetEdit) async throws {
        let replaced: (AssetRecord, AssetEdit?)? = try await database.write { db in
            guard let asset = try Self.asset(db, edit.asset) else { return nil }
            let earlier = try AssetEdit.fetch(db, asset: edit.asset)
            try db.execute(sql: "INSERT OR REPLACE INTO assetEdit (\(AssetEdit.columns)) VALUES (\(AssetEdit.placeholders))",
                           arguments: edit.arguments)
            try LibraryChangeLog.record(.changed, asset: edit.asset, in: db)
            return (asset, earlier)
        }
        guard let replaced else {
            try? await originalStore.remove(edit.file)
            throw LightboxError(.notFound, "The asset \(edit.asset) was removed from the library while it was being edited.")
        }
        let (asset, earlier) = replaced
        changeFeed?.libraryChanged()
        if let earlier, earlier.storedPath != edit.storedPath { try await removeUnusedFiles(of: earlier.currentVersion(of: asset)) }
    }

    /// Returns the asset to its original: its edit is removed and the change recorded. Returns the
    /// edit removed, nil when the asset had none (nothing changes then).
    func revert(_ identifier: String) async throws -> AssetEdit? {
        let reverted: (AssetRecord, AssetEdit)? = try await database.write { db in
            guard let asset = try Self.asset(db, identifier), let edit = try AssetEdit.fetch(db, asset: identifier) else { return nil }
            try db.execute(sql: "DELETE FROM assetEdit WHERE asset = ?", arguments: [identifier])
            try LibraryChangeLog.record(.changed, asset: identifier, in: db)
            return (asset, edit)
        }
        guard let reverted else { return nil }
        let (asset, edit) = reverted
        changeFeed?.libraryChanged()
        try await removeUnusedFiles(of: edit.currentVersion(of: asset))
        return edit
    }
}

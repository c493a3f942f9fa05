import Foundation
import LightboxProtocol

/// Apps' edits in the catalog (`AssetEdit`): the current version beside the original. Saving or
/// reverting one is a library change (`changed`) written in the same transaction; the files an
/// edit no longer uses are removed after it commits.
extension Catalog {
    func edit(of asset: String) async throws -> AssetEdit? {
        try await storage.edit(of: asset)
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
        let edits = try await storage.edits(of: identifiers)
        for edit in edits { found[edit.asset] = found[edit.asset].map(edit.currentVersion(of:)) }
        return found
    }

    /// Makes `edit` the asset's current version (its file stored and durable already) and records
    /// the change, in one transaction; the edit it replaces loses its files. `notFound` when the
    /// asset was removed meanwhile (the new file is removed then).
    func save(_ edit: AssetEdit) async throws {
        let replaced = try await storage.save(edit)
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
        let reverted = try await storage.revert(identifier)
        guard let reverted else { return nil }
        let (asset, edit) = reverted
        changeFeed?.libraryChanged()
        try await removeUnusedFiles(of: edit.currentVersion(of: asset))
        return edit
    }
}

import Foundation

/// Apps' edits (`AssetEdit`): an asset's current version beside its original.
protocol EditStorage: Sendable {
    func edit(of asset: String) async throws -> AssetEdit?
    /// The edits of those of the assets that have one.
    func edits(of assets: [String]) async throws -> [AssetEdit]
    /// Makes `edit` its asset's current version (a `changed` change); returns the asset and the edit
    /// replaced, or nil when the asset is gone (nothing is written then).
    func save(_ edit: AssetEdit) async throws -> (asset: AssetRecord, replaced: AssetEdit?)?
    /// Removes the asset's edit (a `changed` change); returns the asset and the edit, or nil when it had none.
    func revert(_ asset: String) async throws -> (asset: AssetRecord, edit: AssetEdit)?
}

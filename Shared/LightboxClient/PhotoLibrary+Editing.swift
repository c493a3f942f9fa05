import Foundation
import LightboxProtocol
import LightboxTransport

/// PhotoKit's content editing for an app with read-write access: save an edited version with
/// adjustment data (PHContentEditingOutput), read the current version's adjustment data back
/// (PHContentEditingInput) and return an asset to its original. The original is always kept;
/// `ImageRequest(version: .original)` and `VideoRequest(version: .original)` read it.
extension PhotoLibrary {
    /// Saves `edited` (the whole edited photo or movie, at most 16 MiB; the same kind as the
    /// original) as the asset's current version, described by `adjustment`.
    @discardableResult
    public func edit(_ asset: String, adjustment: AdjustmentData, edited: Data) async throws -> EditedVersion {
        var answer: EditingInput?
        for try await reply in picker.send(.editAsset, EditAssetRequest(asset: asset, adjustment: adjustment), attachments: [edited])
        where reply.status == .ok {
            answer = try reply.body(EditingInput.self)
        }
        guard let version = answer?.edit else { throw LightboxError(.internal, "library.edit ended without the edited version.") }
        return version
    }

    /// The asset's current version when it is an edit (with its adjustment data); nil when it is the original.
    public func editingInput(for asset: String) async throws -> EditedVersion? {
        try await picker.request(.editingInput, AssetRequest(asset: asset), as: EditingInput.self).edit
    }

    /// `PHAssetChangeRequest.revertAssetContentToOriginal()`: false when the asset had no edit.
    @discardableResult
    public func revertToOriginal(_ asset: String) async throws -> Bool {
        try await picker.request(.revertAsset, AssetRequest(asset: asset), as: RevertResponse.self).reverted
    }
}

import Foundation
import LightboxProtocol
import Media

/// Getting the bytes an app is owed: the original brought back from the cloud tier when needed
/// (what is then delivered, transcoded or without metadata, comes from `RenditionStore`).
extension PickerService {
    /// The asset with its original local, downloading it from the cloud tier (with progress) when
    /// network access is allowed; nil when it is in the cloud and network access is not allowed.
    func localAsset(
        _ asset: AssetRecord, networkAccessAllowed: Bool, progress: @escaping @Sendable (DownloadProgress) -> Void,
        isCancelled: @escaping @Sendable () async -> Bool = { false }
    ) async throws -> AssetRecord? {
        guard asset.isInCloud else { return asset }
        guard networkAccessAllowed else { return nil }
        try await cloud.download(asset, progress: progress, isCancelled: isCancelled)
        guard let local = try await catalog.asset(asset.identifier) else {
            throw LightboxError(.notFound, "The asset was removed from the library during its download.")
        }
        return local
    }
}

import Foundation
import LightboxProtocol
import Media

/// Getting the bytes an app is owed: the original brought back from the cloud tier when needed,
/// transcoded to the representation asked for, with the metadata the pick removes taken out.
/// Every derivative is made once and cached by content.
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

    /// The file holding `asset` as `representation`, without the metadata `stripping` removes.
    func deliverableFile(for asset: AssetRecord, as representation: UTType, stripping: MetadataStripping,
                         progress: @escaping @Sendable (TranscodeProgress) -> Void = { _ in }) async throws -> URL {
        var source = catalog.originalURL(of: asset)
        var kind = "original"
        do {
            if representation == .jpeg, asset.type != .jpeg {
                let original = source
                source = try await derivatives.file(hash: asset.contentHash, kind: "compatible.jpg") { destination in
                    try ImageRenderer.compatibleJPEG(of: original, to: destination)
                }
                kind = "compatible"
            }
            if representation == .mpeg4Movie, Representations.hasCompatibleMovie(asset) {
                source = try await movieDerivative(of: asset, .compatible, progress: progress)
                kind = "compatible"
            }
            if stripping != .none, asset.mediaType == .video {
                return try await movieWithout(stripping, of: asset, from: source, kind: kind)
            }
            if stripping != .none {
                let base = source
                let fileExtension = representation.preferredFilenameExtension ?? "bin"
                source = try await derivatives.file(hash: asset.contentHash, kind: "\(kind).no-\(stripping).\(fileExtension)") { destination in
                    try MetadataStripper.strip(stripping, from: base, to: destination)
                }
            }
        } catch let error as MediaError {
            throw LightboxError(.badMedia, "The picker could not prepare this asset: \(error.message)")
        }
        return source
    }
}

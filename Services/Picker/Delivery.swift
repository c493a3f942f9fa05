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

    /// Runs `use` with the file holding `asset` as `representation`, without the metadata
    /// `stripping` removes. Derived files stay in the cache while `use` runs.
    /// Transcoding a movie reports `progress`.
    func withDeliverableFile<Result: Sendable>(
        for asset: AssetRecord, as representation: UTType, stripping: MetadataStripping,
        progress: @escaping @Sendable (TranscodeProgress) -> Void = { _ in },
        _ use: @escaping @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let original = catalog.originalURL(of: asset)
        let timeLimit = configuration.renderTimeLimit
        let derivatives = self.derivatives
        let hash = asset.contentHash
        // The last step: without the metadata the pick removes, or the file as it is.
        let stripped: @Sendable (URL, String) async throws -> Result = { source, kind in
            guard stripping != .none else { return try await use(source) }
            if asset.mediaType == .video {
                return try await use(try await self.movieWithout(stripping, of: asset, from: source, kind: kind))
            }
            let fileExtension = representation.preferredFilenameExtension ?? "bin"
            return try await derivatives.withFile(hash: hash, kind: "\(kind).no-\(stripping).\(fileExtension)") { destination in
                try MetadataStripper.strip(stripping, from: source, to: destination)
            } _: { try await use($0) }
        }
        do {
            if representation == .mpeg4Movie, Representations.hasCompatibleMovie(asset) {
                return try await stripped(try await movieDerivative(of: asset, .compatible, progress: progress), "compatible")
            }
            guard representation == .jpeg, asset.type != .jpeg else { return try await stripped(original, "original") }
            return try await derivatives.withFile(hash: hash, kind: "compatible.jpg") { destination in
                try ImageRenderer.compatibleJPEG(of: original, to: destination, timeLimit: timeLimit)
            } _: { try await stripped($0, "compatible") }
        } catch let error as MediaError {
            throw error.during(.prepareAsset)
        }
    }
}

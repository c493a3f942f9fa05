import Foundation
import LightboxProtocol
import Logging

/// The cloud tier: where the owner offloads originals (`CloudStore`: a local folder read back at a set
/// bandwidth, or a bucket or prefix of an S3-compatible store), and from where they come back,
/// downloaded with progress when an app asks with network access allowed, as iCloud Photos
/// originals do.
///
/// Each move copies first, then commits the catalog, then removes the source: a picker stopped half
/// way leaves a spare copy, never an asset whose original is nowhere.
actor CloudTier {
    let catalog: Catalog
    let logger: Logger
    private var downloads: [String: Task<Void, Error>] = [:]

    init(catalog: Catalog, logger: Logger) {
        self.catalog = catalog
        self.logger = logger
    }

    /// Moves an asset's original (and so every asset sharing it) into the cloud tier.
    func offload(_ asset: AssetRecord) async throws {
        guard !asset.isInCloud else { return }
        let cloud = catalog.cloudStore
        try await catalog.originalStore.withLocalFile(asset.original) { file in
            try await cloud.store(asset.storedPath, from: file)
        }
        try await catalog.setInCloud(true, sharingOriginalOf: asset)
        try? await catalog.originalStore.remove(OriginalFile(path: asset.storedPath))
    }

    /// Brings an asset's original back at once (the owner's restore, not a paced download).
    func restore(_ asset: AssetRecord) async throws {
        guard asset.isInCloud else { return }
        try await bringBack(asset, paced: false, progress: { _ in }, isCancelled: { false })
    }

    /// Downloads the original to the library's store, reporting progress; `isCancelled` is asked
    /// between pieces. A second caller for the same original waits on the running download.
    func download(_ asset: AssetRecord, progress: @escaping @Sendable (DownloadProgress) -> Void,
                  isCancelled: @escaping @Sendable () async -> Bool) async throws {
        if let running = downloads[asset.storedPath] {
            try await running.value
            return
        }
        let task = Task { try await bringBack(asset, paced: true, progress: progress, isCancelled: isCancelled) }
        downloads[asset.storedPath] = task
        defer { downloads[asset.storedPath] = nil }
        try await task.value
        logger.info("downloaded an original from the cloud tier", metadata: ["asset": "\(asset.identifier)"])
    }

    private func bringBack(_ asset: AssetRecord, paced: Bool, progress: @escaping @Sendable (DownloadProgress) -> Void,
                           isCancelled: @escaping @Sendable () async -> Bool) async throws {
        // Written where an import writes an original, then kept by the library's store.
        try await catalog.cloudStore.fetch(asset.storedPath, to: catalog.originalURL(of: asset), paced: paced,
                                           progress: progress, isCancelled: isCancelled)
        try await catalog.originalStore.keep([OriginalFile(path: asset.storedPath)])
        try await catalog.setInCloud(false, sharingOriginalOf: asset)
        try? await catalog.cloudStore.remove(asset.storedPath)
    }
}

extension CloudTier {
    /// The asset with its original local, downloading it from the cloud tier (with progress) when
    /// network access is allowed; nil when it is in the cloud and network access is not allowed.
    func localAsset(
        _ asset: AssetRecord, networkAccessAllowed: Bool, progress: @escaping @Sendable (DownloadProgress) -> Void,
        isCancelled: @escaping @Sendable () async -> Bool = { false }
    ) async throws -> AssetRecord? {
        guard asset.isInCloud else { return asset }
        guard networkAccessAllowed else { return nil }
        try await download(asset, progress: progress, isCancelled: isCancelled)
        guard let local = try await catalog.asset(asset.identifier) else {
            throw LightboxError(.notFound, "The asset was removed from the library during its download.")
        }
        return local
    }
}

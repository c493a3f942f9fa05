import Foundation
import LightboxProtocol
import Logging

/// The cloud tier: a second storage folder the owner can offload originals to, read back at a
/// configurable bandwidth so downloads take observable time (and can be cancelled), as iCloud Photos
/// originals do.
actor CloudTier {
    let catalog: Catalog
    /// Bytes per second; 0 reads as fast as the disk allows.
    let bandwidth: Int
    let logger: Logger
    /// Where the download's reads and writes run, a piece at a time.
    let pool: BlockingWorkPool
    private var downloads: [String: Task<Void, Error>] = [:]

    init(catalog: Catalog, bandwidth: Int, logger: Logger, pool: BlockingWorkPool) {
        self.catalog = catalog
        self.bandwidth = bandwidth
        self.logger = logger
        self.pool = pool
    }

    /// Moves an asset's original into the cloud folder.
    func offload(_ asset: AssetRecord) async throws {
        guard !asset.isInCloud else { return }
        guard catalog.originalStore.hasCloudTier else {
            throw LightboxError(.badRequest, "This picker keeps its originals in an object store, which has no cloud tier to offload to yet.")
        }
        try move(asset, from: catalog.originals, to: catalog.cloud)
        try await catalog.setInCloud(true, asset: asset.identifier)
    }

    /// Brings an asset's original back at once (the owner's restore, not a throttled download).
    func restore(_ asset: AssetRecord) async throws {
        guard asset.isInCloud else { return }
        try move(asset, from: catalog.cloud, to: catalog.originals)
        try await catalog.setInCloud(false, asset: asset.identifier)
    }

    /// Downloads the original to the local library, reporting progress; `isCancelled` is asked
    /// between pieces. A second caller for the same asset waits on the running download.
    func download(_ asset: AssetRecord, progress: @escaping @Sendable (DownloadProgress) -> Void,
                  isCancelled: @escaping @Sendable () async -> Bool) async throws {
        if let running = downloads[asset.identifier] {
            try await running.value
            return
        }
        let source = catalog.cloud.appendingPathComponent(asset.storedPath)
        let destination = catalog.originals.appendingPathComponent(asset.storedPath)
        let bandwidth = self.bandwidth
        let catalog = self.catalog
        let pool = self.pool
        let task = Task {
            try await Self.copy(from: source, to: destination, bandwidth: bandwidth, pool: pool, progress: progress, isCancelled: isCancelled)
            try FileManager.default.removeItem(at: source)
            try await catalog.setInCloud(false, asset: asset.identifier)
        }
        downloads[asset.identifier] = task
        defer { downloads[asset.identifier] = nil }
        try await task.value
        logger.info("downloaded an original from the cloud tier", metadata: ["asset": "\(asset.identifier)"])
    }

    private func move(_ asset: AssetRecord, from: URL, to: URL) throws {
        let destination = to.appendingPathComponent(asset.storedPath)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: from.appendingPathComponent(asset.storedPath), to: destination)
    }

    private static func copy(from source: URL, to destination: URL, bandwidth: Int, pool: BlockingWorkPool,
                             progress: @Sendable (DownloadProgress) -> Void, isCancelled: @Sendable () async -> Bool) async throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let total = Int64(try input.seekToEnd())
        try input.seek(toOffset: 0)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = destination.appendingPathExtension("download")
        FileManager.default.createFile(atPath: partial.path, contents: nil)
        let output = try FileHandle(forWritingTo: partial)
        defer { try? output.close() }
        // Ten pieces a second at the configured bandwidth.
        let piece = bandwidth > 0 ? max(bandwidth / 10, 1024) : 1 << 20
        var completed: Int64 = 0
        progress(DownloadProgress(completed: 0, total: total))
        while true {
            if await isCancelled() {
                try? FileManager.default.removeItem(at: partial)
                throw CancellationError()
            }
            // Each piece is read and written on the pool, not on a cooperative thread.
            let count = try await pool.run {
                guard let data = try input.read(upToCount: piece), !data.isEmpty else { return 0 }
                try output.write(contentsOf: data)
                return data.count
            }
            if count == 0 { break }
            completed += Int64(count)
            progress(DownloadProgress(completed: completed, total: total))
            if bandwidth > 0 { try await Task.sleep(for: .milliseconds(1000 * count / bandwidth)) }
        }
        try output.close()
        guard rename(partial.path, destination.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
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

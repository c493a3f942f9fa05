import Foundation
import LightboxProtocol

/// The cloud tier as a local folder, read back at `bandwidth` bytes per second so that downloads take
/// observable time and can be cancelled, as iCloud Photos originals do.
struct LocalCloudFolder: CloudStore {
    let folder: URL
    /// Bytes per second a paced fetch reads; 0 reads as fast as the disk allows.
    let bandwidth: Int
    /// Where the copies' reads and writes run, a piece at a time.
    let pool: BlockingWorkPool

    func store(_ path: String, from file: URL) async throws {
        let destination = folder.appendingPathComponent(path)
        try await copy(from: file, to: destination, bandwidth: 0, progress: { _ in }, isCancelled: { false })
    }

    func fetch(_ path: String, to destination: URL, paced: Bool, progress: @Sendable (DownloadProgress) -> Void,
               isCancelled: @Sendable () async -> Bool) async throws {
        try await copy(from: folder.appendingPathComponent(path), to: destination, bandwidth: paced ? bandwidth : 0,
                       progress: progress, isCancelled: isCancelled)
    }

    func remove(_ path: String) async throws {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(path))
    }

    func forEachStoredPage(modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws {
        try await LocalStoredFiles.forEachPage(in: folder, modifiedBefore: cutoff, page)
    }

    func removeStored(_ path: String) async throws {
        try await remove(path)
    }

    private func copy(from source: URL, to destination: URL, bandwidth: Int, progress: @Sendable (DownloadProgress) -> Void,
                      isCancelled: @Sendable () async -> Bool) async throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let total = Int64(try input.seekToEnd())
        try input.seek(toOffset: 0)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = destination.appendingPathExtension("download")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial.path])
        }
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
        try await DurableFiles.makeDurable([destination])
    }
}

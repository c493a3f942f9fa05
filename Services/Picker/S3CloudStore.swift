import Foundation
import LightboxObjectStore
import LightboxProtocol
import NIOFileSystem

/// The cloud tier in a bucket or prefix of an S3-compatible store: offloading uploads the original
/// (streamed, in parts when large), a download reads it back as one streamed GET written to disk as it
/// arrives, with progress per chunk. A store that is down or slow answers `timeout` (`S3Timeouts`).
struct S3CloudStore: CloudStore {
    let client: S3Client
    let location: S3Location

    func store(_ path: String, from file: URL) async throws {
        try await client.put(bucket: location.bucket, key: location.key(path), file: file.path)
    }

    func fetch(_ path: String, to destination: URL, paced: Bool, progress: @Sendable (DownloadProgress) -> Void,
               isCancelled: @Sendable () async -> Bool) async throws {
        let body = try await client.get(bucket: location.bucket, key: location.key(path))
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = destination.appendingPathExtension("download")
        do {
            try await FileSystem.shared.withFileHandle(
                forWritingAt: FilePath(partial.path), options: .newFile(replaceExisting: true, permissions: .ownerReadWrite)
            ) { handle in
                var offset: Int64 = 0
                progress(DownloadProgress(completed: 0, total: body.contentLength))
                for try await chunk in body {
                    if await isCancelled() { throw CancellationError() }
                    offset += try await handle.write(contentsOf: chunk, toAbsoluteOffset: offset)
                    progress(DownloadProgress(completed: offset, total: body.contentLength))
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        guard rename(partial.path, destination.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        try await DurableFiles.makeDurable([destination])
    }

    func remove(_ path: String) async throws {
        try await client.delete(bucket: location.bucket, key: location.key(path))
    }

    func forEachStoredPage(modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws {
        try await client.forEachPage(under: location, modifiedBefore: cutoff, page)
    }

    func removeStored(_ path: String) async throws {
        try await remove(path)
    }
}

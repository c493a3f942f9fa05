import Foundation
import LightboxObjectStore
import LightboxProtocol
import LightboxTransport

/// Originals in an S3-compatible object store (`s3://BUCKET/PREFIX`, keys being the prefix and the
/// stored path), with a bounded local cache (`OriginalCache`) in front of it. An import's original is
/// uploaded (streamed, multipart when large) and counted into the cache; reads that need a path
/// fetch the original into the cache with one streamed GET; a load of an original that is not cached
/// streams it with ranged GETs, never the whole object in memory nor on disk.
///
/// A store that is down or slow answers `timeout` with a sentence (`S3Timeouts` bound every wait),
/// and what the cache holds is still served.
struct S3OriginalStore: OriginalStore {
    let client: S3Client
    let location: S3Location
    let cache: OriginalCache
    /// Uploads running at once while an import batch is kept.
    static let uploadWidth = 4

    func keep(_ originals: [OriginalFile]) async throws {
        try await withThrowingTaskGroup(of: String.self) { group in
            var pending = originals.map(\.path)[...]
            func startNext() {
                guard let path = pending.popFirst() else { return }
                group.addTask { [client, location, cache] in
                    try await client.put(bucket: location.bucket, key: location.key(path), file: cache.url(of: path).path)
                    return path
                }
            }
            for _ in 0..<Self.uploadWidth { startNext() }
            while let path = try await group.next() {
                // Counted only once the store has it: until then no eviction may take the only copy.
                await cache.added(path)
                startNext()
            }
        }
    }

    func withLocalFile<Result: Sendable>(_ original: OriginalFile, _ use: @Sendable (URL) async throws -> Result) async throws -> Result {
        try original.requireLocal()
        let (client, location) = (self.client, self.location)
        return try await cache.withFile(original.path, fetch: { partial in
            try await client.get(bucket: location.bucket, key: location.key(original.path)).write(to: partial)
        }, use)
    }

    func remoteSource(of original: OriginalFile) async throws -> (any ChunkSource)? {
        try original.requireLocal()
        if await cache.contains(original.path) { return nil }
        let (client, bucket, key) = (self.client, location.bucket, location.key(original.path))
        let first = try await client.get(bucket: bucket, key: key)
        return ObjectChunkSource(totalBytes: first.contentLength, first: first) { range in
            try await client.get(bucket: bucket, key: key, range: range)
        }
    }

    func remove(_ original: OriginalFile) async throws {
        try await client.delete(bucket: location.bucket, key: location.key(original.path))
        await cache.remove(original.path)
    }

    func forEachStoredPage(modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws {
        try await client.forEachPage(under: location, modifiedBefore: cutoff, page)
    }

    func removeStored(_ path: String) async throws {
        try await remove(OriginalFile(path: path))
    }
}

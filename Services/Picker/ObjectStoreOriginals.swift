import Foundation
import LightboxObjectStore

/// How the picker keeps its originals in an object store (`--originals s3://…`): where, through which
/// connection, and the local cache in front of it.
public struct ObjectStoreOriginals: Sendable {
    public var location: S3Location
    public var connection: ObjectStoreConnection
    /// The cache's folder (default DATA/picker/originals-cache); its originals are kept in `originals` inside it.
    public var cacheFolder: URL?
    /// Bytes and files the cache may hold; the least recently used go first.
    public var cacheBytes: Int64 = 4 << 30
    public var cacheFiles = 10_000

    public init(location: S3Location, connection: ObjectStoreConnection) {
        self.location = location
        self.connection = connection
    }

    func makeStore(defaultCache: URL) throws -> S3OriginalStore {
        let cache = try OriginalCache(folder: (cacheFolder ?? defaultCache).appendingPathComponent("originals"),
                                      limits: OriginalCache.Limits(bytes: cacheBytes, count: cacheFiles))
        return S3OriginalStore(client: try connection.makeClient(), location: location, cache: cache)
    }
}

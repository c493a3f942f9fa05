import Foundation
import LightboxObjectStore

/// How the picker reaches an object store for its originals (`--originals s3://…`): where, as whom,
/// how long it waits, and the local cache in front of it.
public struct ObjectStoreOriginals: Sendable {
    public var location: S3Location
    /// `http://HOST:PORT` or `https://HOST`, addressed path-style.
    public var endpoint: String
    public var credentials: SigningCredentials
    public var region = "us-east-1"
    public var timeouts = S3Timeouts()
    /// The cache's folder (default DATA/picker/originals-cache); its originals are kept in `originals` inside it.
    public var cacheFolder: URL?
    /// Bytes and files the cache may hold; the least recently used go first.
    public var cacheBytes: Int64 = 4 << 30
    public var cacheFiles = 10_000

    public init(location: S3Location, endpoint: String, credentials: SigningCredentials) {
        self.location = location
        self.endpoint = endpoint
        self.credentials = credentials
    }

    func makeStore(defaultCache: URL) throws -> S3OriginalStore {
        let cache = try OriginalCache(folder: (cacheFolder ?? defaultCache).appendingPathComponent("originals"),
                                      limits: OriginalCache.Limits(bytes: cacheBytes, count: cacheFiles))
        let client = try S3Client(endpoint: endpoint, region: region, credentials: credentials, timeouts: timeouts)
        return S3OriginalStore(client: client, location: location, cache: cache)
    }
}

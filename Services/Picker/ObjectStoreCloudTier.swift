import LightboxObjectStore

/// The cloud tier in an object store (`--cloud s3://BUCKET/PREFIX`): offloaded originals move to this
/// bucket or prefix and are downloaded back from it, with the store's own latency.
public struct ObjectStoreCloudTier: Sendable {
    public var location: S3Location
    public var connection: ObjectStoreConnection

    public init(location: S3Location, connection: ObjectStoreConnection) {
        self.location = location
        self.connection = connection
    }

    func makeStore() throws -> S3CloudStore {
        S3CloudStore(client: try connection.makeClient(), location: location)
    }
}

import LightboxObjectStore
import Logging

/// Derived files (thumbnails, renditions, compatible JPEGs, transcodes, stripped copies) in an object
/// store (`--derived s3://BUCKET/PREFIX`, by default `derived/` beside the originals' prefix), shared by
/// every picker of the library, with the local derived folder as a bounded cache in front of it.
public struct ObjectStoreDerivatives: Sendable {
    public var location: S3Location
    public var connection: ObjectStoreConnection

    public init(location: S3Location, connection: ObjectStoreConnection) {
        self.location = location
        self.connection = connection
    }

    /// `derived/` beside the originals' prefix (s3://photos/library → s3://photos/derived); nil for
    /// originals at a bucket's root, which have nothing beside them.
    public static func defaultLocation(beside originals: S3Location) -> S3Location? {
        var parts = originals.prefix.split(separator: "/")
        guard !parts.isEmpty else { return nil }
        parts.removeLast()
        return S3Location(bucket: originals.bucket, prefix: (parts + ["derived"]).joined(separator: "/"))
    }

    /// The store as the derivative cache uses it; after a failure it is left alone as long as
    /// one request to it may stay silent (`--s3-timeout`).
    func makeShared(logger: Logger) throws -> SharedDerivatives {
        SharedDerivatives(store: S3DerivativeStore(client: try connection.makeClient(), location: location),
                          pause: .nanoseconds(connection.timeouts.idle.nanoseconds), logger: logger)
    }
}

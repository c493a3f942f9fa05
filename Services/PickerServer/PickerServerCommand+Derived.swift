import ArgumentParser
import LightboxObjectStore
import Picker

extension PickerServerCommand {
    /// Where the derived files are shared (`--derived`): the location given, or `derived/` beside the
    /// originals' prefix when they are in an object store; nil keeps them in the local folder only.
    var derivedLocation: S3Location? {
        if derived == "local" { return nil }
        if let derived { return S3Location(url: derived) }
        return originals.flatMap(S3Location.init(url:)).flatMap(ObjectStoreDerivatives.defaultLocation(beside:))
    }

    /// Checks `--derived` and where it puts the derived files: in the object store, apart from the
    /// originals and the cloud tier (the sweep of each would take the others' objects for strays).
    func validateDerived() throws {
        if let derived, derived != "local" {
            guard S3Location(url: derived) != nil else { throw ValidationError("--derived must look like s3://BUCKET/PREFIX, or be `local`") }
            guard s3Endpoint != nil else { throw ValidationError("--derived needs --s3-endpoint URL (the object store, e.g. http://127.0.0.1:8333)") }
        }
        if derived == nil, let location = originals.flatMap(S3Location.init(url:)), ObjectStoreDerivatives.defaultLocation(beside: location) == nil {
            throw ValidationError("""
                --originals \(location) is a bucket's root, with no place beside it for derived files; \
                give --derived s3://BUCKET/PREFIX (another prefix or bucket), or --derived local
                """)
        }
        guard let location = derivedLocation else { return }
        for (option, other) in [("--originals", originals), ("--cloud", cloud)] {
            guard let other = other.flatMap(S3Location.init(url:)), Self.overlap(location, other) else { continue }
            throw ValidationError("derived files at \(location) and \(option) \(other) overlap; give --derived its own bucket or prefix")
        }
    }

    /// Whether one location's keys can be the other's (same bucket, one prefix begins the other).
    static func overlap(_ one: S3Location, _ other: S3Location) -> Bool {
        one.bucket == other.bucket && (one.prefix.hasPrefix(other.prefix) || other.prefix.hasPrefix(one.prefix))
    }

    /// The derived files' object store; nil keeps them in the local folder only.
    func derivedObjectStore() throws -> ObjectStoreDerivatives? {
        guard let location = derivedLocation, let connection = try objectStoreConnection() else { return nil }
        return ObjectStoreDerivatives(location: location, connection: connection)
    }
}

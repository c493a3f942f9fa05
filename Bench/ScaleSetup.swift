import Foundation
import LightboxCommandLineSupport
import LightboxObjectStore
import TestServers

/// One way of running the services `bench scale` measures: where their state and their originals
/// live. The baseline is the embedded default (SQLite in the data folder, a local folder of
/// originals); the others move one of the two to a server.
struct ScaleSetup: Sendable {
    var name: String
    /// Options for lightbox-auth alone, and for lightbox-picker alone.
    var authArguments: [String] = []
    var pickerArguments: [String] = []

    static let embedded = ScaleSetup(name: "SQLite + folder")
}

/// The servers `bench scale` started itself for `--database postgres` or `--originals s3`, stopped
/// when it ends.
final class ThrowawayServers: @unchecked Sendable {
    private(set) var postgres: PostgresServer?
    private(set) var seaweed: SeaweedFSServer?

    /// `--database`'s value as the setup's options: a URL as given (both services use that database;
    /// their tables do not overlap), or `postgres` for a new database per service on a server started
    /// here with initdb.
    func databaseSetup(_ database: String) async throws -> ScaleSetup {
        guard database == "postgres" else {
            return ScaleSetup(name: "PostgreSQL", authArguments: ["--database", database], pickerArguments: ["--database", database])
        }
        note("starting a throwaway PostgreSQL (initdb in a temporary folder)")
        let server = try await PostgresServer.start()
        postgres = server
        return ScaleSetup(name: "PostgreSQL", authArguments: ["--database", server.url(database: try server.createDatabase("bench_auth"))],
                          pickerArguments: ["--database", server.url(database: try server.createDatabase("bench_picker"))])
    }

    /// `--originals`' value as the setup's options: `s3://BUCKET/PREFIX` on `endpoint` (credentials
    /// from the environment, as the picker reads them), or `s3` for a SeaweedFS started here.
    /// `coldLoads`: with a local cache too small for the movie (`bench scale`'s loads).
    func originalsSetup(_ originals: String, endpoint: String?, coldLoads: Bool = true) async throws -> ScaleSetup {
        let coldLoads = coldLoads ? self.coldLoads : []
        guard originals == "s3" else {
            guard let endpoint else { throw BenchScaleError("--originals \(originals) needs --s3-endpoint, the store's URL") }
            return ScaleSetup(name: "S3 originals", pickerArguments: ["--originals", originals, "--s3-endpoint", endpoint] + coldLoads)
        }
        note("starting a throwaway SeaweedFS (weed mini)")
        let server = try await SeaweedFSServer.start()
        seaweed = server
        setenv("AWS_ACCESS_KEY_ID", SeaweedFSServer.credentials.accessKeyID, 1)
        setenv("AWS_SECRET_ACCESS_KEY", SeaweedFSServer.credentials.secretAccessKey, 1)
        return ScaleSetup(name: "S3 originals",
                          pickerArguments: ["--originals", "s3://\(SeaweedFSServer.bucket)/bench-\(getpid())", "--s3-endpoint", server.endpoint]
                            + coldLoads)
    }

    /// A local cache too small for the movie: each load comes from the store, as a first load does.
    private var coldLoads: [String] { ["--cache-mb", "1"] }

    /// `endpoint` and `bucket` with the environment's credentials, or a SeaweedFS started here when
    /// `endpoint` is nil.
    func objectStore(endpoint: String?, bucket: String?) async throws
        -> (endpoint: String, bucket: String, credentials: SigningCredentials) {
        if let endpoint {
            guard let bucket else { throw BenchScaleError("--endpoint \(endpoint) needs --bucket, a bucket that exists there") }
            return (endpoint, bucket, try SigningCredentials.load(file: nil))
        }
        note("starting a throwaway SeaweedFS (weed mini)")
        let server = try await SeaweedFSServer.start()
        seaweed = server
        return (server.endpoint, SeaweedFSServer.bucket, SeaweedFSServer.credentials)
    }

    func stop() {
        postgres?.stop()
        seaweed?.stop()
    }
}

struct BenchScaleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

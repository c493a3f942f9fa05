import LightboxObjectStore

/// How the picker reaches an S3-compatible store: where it answers, as whom, and how long it waits.
/// The originals (`ObjectStoreOriginals`) and the cloud tier (`ObjectStoreCloudTier`) each open their
/// own client from it.
public struct ObjectStoreConnection: Sendable {
    /// `http://HOST:PORT` or `https://HOST`, addressed path-style.
    public var endpoint: String
    public var credentials: SigningCredentials
    public var region = "us-east-1"
    public var timeouts = S3Timeouts()

    public init(endpoint: String, credentials: SigningCredentials) {
        self.endpoint = endpoint
        self.credentials = credentials
    }

    func makeClient() throws -> S3Client {
        try S3Client(endpoint: endpoint, region: region, credentials: credentials, timeouts: timeouts)
    }
}

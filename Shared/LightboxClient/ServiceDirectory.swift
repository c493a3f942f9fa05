import Foundation
import LightboxTransport
import Logging

/// Where the services listen and how to recognise them: their endpoints and the data directory
/// that holds their public keys (`keys/auth.pub`, `keys/picker.pub`).
public struct ServiceDirectory: Sendable {
    public static let defaultAuthEndpoint = "tcp://127.0.0.1:7711"
    public static let defaultPickerEndpoint = "tcp://127.0.0.1:7712"

    public var dataDirectory: URL
    public var authEndpoint: String
    public var pickerEndpoint: String

    public init(dataDirectory: URL, authEndpoint: String = defaultAuthEndpoint, pickerEndpoint: String = defaultPickerEndpoint) {
        self.dataDirectory = dataDirectory
        self.authEndpoint = authEndpoint
        self.pickerEndpoint = pickerEndpoint
    }

    public var keys: KeyDirectory { KeyDirectory(dataDirectory: dataDirectory) }

    /// The owner's key pair, made on the auth service's first start.
    public func ownerKeyPair() throws -> CurveKeyPair {
        try CurveKeyPair.load(from: keys.keyURL(KeyDirectory.owner))
    }

    /// The key pair `lightbox app register` wrote for an app.
    public func appKeyPair(_ appID: String) throws -> CurveKeyPair {
        try CurveKeyPair.load(from: keys.appKeyURL(appID))
    }

    public func connectToPicker(as keyPair: CurveKeyPair, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "lightbox.client")) async throws -> DealerConnection {
        try await connect(to: pickerEndpoint, service: KeyDirectory.pickerService, as: keyPair, timeout: timeout, logger: logger)
    }

    public func connectToAuth(as keyPair: CurveKeyPair, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "lightbox.client")) async throws -> DealerConnection {
        try await connect(to: authEndpoint, service: KeyDirectory.authService, as: keyPair, timeout: timeout, logger: logger)
    }

    private func connect(to endpoint: String, service: String, as keyPair: CurveKeyPair, timeout: Duration, logger: Logger) async throws -> DealerConnection {
        let serverKey = try await keys.publicKey(service, waitingUpTo: .seconds(5))
        var configuration = DealerConnection.Configuration(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair)
        configuration.defaultTimeout = timeout
        return try DealerConnection(configuration, logger: logger)
    }
}

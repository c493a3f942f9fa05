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

    /// A connection to lightbox-picker; it says `launch` first (default: this process's), so all
    /// connections of one process are one launch of the app.
    public func connectToPicker(as keyPair: CurveKeyPair, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "lightbox.client"),
                                launch: String? = ProcessLaunch.id) async throws -> DealerConnection {
        try await connect(to: pickerEndpoint, service: KeyDirectory.pickerService, as: keyPair, timeout: timeout, logger: logger, launch: launch)
    }

    public func connectToAuth(as keyPair: CurveKeyPair, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "lightbox.client"),
                              launch: String? = ProcessLaunch.id) async throws -> DealerConnection {
        try await connect(to: authEndpoint, service: KeyDirectory.authService, as: keyPair, timeout: timeout, logger: logger, launch: launch)
    }

    private func connect(to endpoint: String, service: String, as keyPair: CurveKeyPair, timeout: Duration, logger: Logger,
                         launch: String?) async throws -> DealerConnection {
        let serverKey = try await keys.publicKey(service, waitingUpTo: .seconds(5))
        var configuration = DealerConnection.Configuration(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair)
        configuration.defaultTimeout = timeout
        configuration.launch = launch
        return try DealerConnection(configuration, logger: logger)
    }
}

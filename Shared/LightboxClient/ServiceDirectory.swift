import Foundation
import LightboxTransport
import Logging

/// Where the services listen and how to recognise them: their endpoints and the data directory
/// that holds their public keys (`keys/auth.pub`, `keys/picker.pub`). Several pickers may serve
/// one library: they are listed in order, and share one service key.
public struct ServiceDirectory: Sendable {
    public static let defaultAuthEndpoint = "tcp://127.0.0.1:7711"
    public static let defaultPickerEndpoint = "tcp://127.0.0.1:7712"

    public var dataDirectory: URL
    public var authEndpoint: String
    /// The pickers of the library, in the order a client tries them (never empty).
    public var pickerEndpoints: [String]

    /// The first picker, which connections that take one picker (the portal) use.
    public var pickerEndpoint: String {
        get { pickerEndpoints[0] }
        set { pickerEndpoints = [newValue] }
    }

    /// `pickerEndpoint` may list several pickers, separated by commas (`PickerEndpoints`).
    public init(dataDirectory: URL, authEndpoint: String = defaultAuthEndpoint, pickerEndpoint: String = defaultPickerEndpoint) {
        self.dataDirectory = dataDirectory
        self.authEndpoint = authEndpoint
        let endpoints = PickerEndpoints.parse(pickerEndpoint)
        pickerEndpoints = endpoints.isEmpty ? [Self.defaultPickerEndpoint] : endpoints
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

    /// "The picker" for an app: one picker's connection, or with several pickers a
    /// `FailoverConnection` that moves to the next when one stops answering.
    public func connectToPickers(as keyPair: CurveKeyPair, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "lightbox.client"),
                                 launch: String? = ProcessLaunch.id) async throws -> any PickerConnection {
        guard pickerEndpoints.count > 1 else {
            return try await connectToPicker(as: keyPair, timeout: timeout, logger: logger, launch: launch)
        }
        var configuration = FailoverConnection.Configuration(
            endpoints: pickerEndpoints, serverKey: try await keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(5)),
            keyPair: keyPair)
        configuration.defaultTimeout = timeout
        configuration.launch = launch
        return try FailoverConnection(configuration, logger: logger)
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

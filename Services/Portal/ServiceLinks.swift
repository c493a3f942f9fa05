import Foundation
import LightboxClient
import LightboxTransport
import Logging

/// lightbox-portal's connections to lightbox-picker and lightbox-auth under the portal's own key,
/// made when first needed and kept. A portal started by D-Bus activation owns its bus name at
/// once, whether the services run yet or not; a pick made while they do not is answered 2.
actor ServiceLinks {
    let directory: ServiceDirectory
    let keyPair: CurveKeyPair
    let logger: Logger
    private var connections: [Service: DealerConnection] = [:]

    enum Service: String, Sendable {
        case picker = "lightbox-picker"
        case auth = "lightbox-auth"
    }

    init(directory: ServiceDirectory, keyPair: CurveKeyPair, logger: Logger) {
        self.directory = directory
        self.keyPair = keyPair
        self.logger = logger
    }

    func picker() async throws(PortalError) -> DealerConnection { try await connection(to: .picker) }

    func auth() async throws(PortalError) -> DealerConnection { try await connection(to: .auth) }

    func close() {
        for connection in connections.values { connection.close() }
        connections = [:]
    }

    private func connection(to service: Service) async throws(PortalError) -> DealerConnection {
        if let known = connections[service] { return known }
        let made: DealerConnection
        do {
            made = switch service {
            case .picker: try await directory.connectToPicker(as: keyPair, logger: logger)
            case .auth: try await directory.connectToAuth(as: keyPair, logger: logger)
            }
        } catch {
            throw PortalError(.servicesUnavailable, "Cannot reach \(service.rawValue) (is it running, with the data folder \(directory.dataDirectory.path)?).",
                              cause: error)
        }
        // Another call may have connected while this one waited for the key.
        if let known = connections[service] {
            made.close()
            return known
        }
        connections[service] = made
        return made
    }
}

import LightboxProtocol
import LightboxTransport
import Synchronization

/// The picker's DEALER to lightbox-auth, attached in `run` once auth's key is known.
final class AuthLink: Sendable {
    private let connection = Mutex<DealerConnection?>(nil)

    func attach(_ connection: DealerConnection) {
        self.connection.withLock { $0 = connection }
    }

    /// The connection, or `busy` while the picker is still starting.
    func connected() throws(LightboxError) -> DealerConnection {
        guard let connection = connection.withLock({ $0 }) else {
            throw LightboxError(.busy, "lightbox-picker is still starting; try again in a moment.")
        }
        return connection
    }
}

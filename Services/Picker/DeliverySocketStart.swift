import Foundation
import LightboxProtocol
import LightboxTransport
import Synchronization

extension PickerService {
    func openDeliverySocket() throws {
        guard let path = DeliverySocket.path(besideEndpoint: configuration.endpoint) else { return }
        let auditReporter = self.auditReporter
        let logger = self.logger
        let socket = try DeliverySocket(path: path, tickets: fileTickets, logger: logger) { outcome in
            switch outcome {
            case .delivered(let ticket, let peer):
                auditReporter.record(app: ticket.app, operation: .open, assetCount: 1,
                                     outcome: .delivered(toProcess: peer.processID, user: peer.userID), bytes: ticket.fileSize, asset: ticket.asset)
            case .refused(let ticket, let peer, let error):
                let presenter = peer.map { " by pid \($0.processID) uid \($0.userID)" } ?? ""
                if let ticket {
                    auditReporter.record(app: ticket.app, operation: .open, assetCount: 1, outcome: .refused("\(error.code)\(presenter)"),
                                         asset: ticket.asset)
                } else {
                    logger.notice("delivery ticket refused", metadata: ["presenter": "\(presenter)", "reason": "\(error.message)"])
                }
            case .expired(let ticket):
                auditReporter.record(app: ticket.app, operation: .open, assetCount: 1, outcome: .expired, asset: ticket.asset)
            }
        }
        deliverySocket.open(socket)
    }
}

/// The delivery socket while it is open: set once the picker serves, read by `provider.open`.
final class DeliverySocketSlot: Sendable {
    private let socket = Mutex<DeliverySocket?>(nil)

    func open(_ socket: DeliverySocket) {
        self.socket.withLock { $0 = socket }
    }

    /// Its path, or nil when there is none (over tcp, or before serving).
    var path: String? { socket.withLock { $0?.path } }

    func close() {
        socket.withLock { $0 }?.close()
    }
}

import CLinux
import Dispatch
import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The picker's delivery socket: a unix stream socket beside its ipc endpoint (mode 0600) where a
/// process presents a `provider.open` ticket and receives the file's read-only descriptor.
///
/// The exchange: the client connects and writes the ticket and "\n" (at most
/// `FileTicket.maximumLineLength` bytes, within `deadline`); the picker reads the kernel's
/// credentials of the connection, takes the ticket (one use, whatever the outcome), checks it is
/// unexpired and was issued to this very process (pid and uid), answers one line of JSON
/// (`DeliveryAnswer`), with the descriptor attached (SCM_RIGHTS) when it is `ok`, and closes.
///
/// Event-driven on one serial queue: every socket is non-blocking, each connection has its own
/// deadline, and at most `maximumPending` connections wait at once (more are closed on accept),
/// so a client that connects and says nothing costs only its own slot for `deadline`.
final class DeliverySocket: @unchecked Sendable {
    /// How one presentation ended, for the audit trail.
    enum Outcome: Sendable {
        case delivered(FileTickets.Ticket, to: PeerCredentials)
        case refused(FileTickets.Ticket?, by: PeerCredentials?, LightboxError)
        case expired(FileTickets.Ticket)
    }

    static let maximumPending = 64
    static let deadline: DispatchTimeInterval = .seconds(2)
    /// How long accepting pauses after a failure other than "none waiting".
    static let acceptPause: DispatchTimeInterval = .milliseconds(100)

    /// The socket's path: the picker's ipc endpoint path with ".delivery" added.
    let path: String
    private let tickets: FileTickets
    private let onOutcome: @Sendable (Outcome) -> Void
    private let logger: Logger
    private let queue = DispatchQueue(label: "lightbox-delivery")

    // Everything below is touched only on `queue`.
    private let listener: Int32
    private var accepting: (any DispatchSourceRead)?
    private var acceptingPaused = false
    private var sweeping: (any DispatchSourceTimer)?
    private var pending: [Int32: Connection] = [:]

    /// One connection waiting for its ticket line.
    private final class Connection {
        let descriptor: Int32
        let reader: any DispatchSourceRead
        let deadline: any DispatchSourceTimer
        var line: [UInt8] = []

        init(descriptor: Int32, reader: any DispatchSourceRead, deadline: any DispatchSourceTimer) {
            self.descriptor = descriptor
            self.reader = reader
            self.deadline = deadline
        }
    }

    /// The delivery socket for an `ipc://` endpoint, or nil for any other endpoint.
    static func path(besideEndpoint endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc:///") else { return nil }
        return String(endpoint.dropFirst("ipc://".count)) + ".delivery"
    }

    init(path: String, tickets: FileTickets, logger: Logger, onOutcome: @escaping @Sendable (Outcome) -> Void) throws(LightboxError) {
        self.path = path
        self.tickets = tickets
        self.logger = logger
        self.onOutcome = onOutcome
        listener = lightbox_private_unix_listener(path, 64)
        guard listener >= 0 else {
            throw LightboxError(.internal, "Cannot listen on the delivery socket \(path): \(String(cString: strerror(errno))).")
        }
        let accepting = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
        let listener = self.listener
        accepting.setEventHandler { [self] in acceptWaiting() }
        accepting.setCancelHandler { Glibc.close(listener) }
        let sweeping = DispatchSource.makeTimerSource(queue: queue)
        sweeping.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        sweeping.setEventHandler { [tickets, onOutcome] in
            for ticket in tickets.closeExpired() { onOutcome(.expired(ticket)) }
        }
        queue.sync {
            self.accepting = accepting
            self.sweeping = sweeping
        }
        accepting.resume()
        sweeping.resume()
    }

    /// Stops accepting, drops waiting connections, removes the socket file and closes every
    /// descriptor still held by a ticket.
    func close() {
        queue.sync {
            accepting?.cancel()
            // A suspended source runs its cancel handler (closing the listener) only once resumed.
            resumeAccepting()
            accepting = nil
            sweeping?.cancel()
            sweeping = nil
            for descriptor in Array(pending.keys) { finish(descriptor) }
            unlink(path)
        }
        tickets.closeAll()
    }

    // MARK: On `queue`

    private func acceptWaiting() {
        guard accepting != nil else { return }  // Closed: the listener's number may be another file's by now.
        while true {
            let descriptor = lightbox_accept_nonblocking(listener)
            guard descriptor >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    // Out of descriptors, say: the listener stays readable, so accepting pauses
                    // instead of spinning on it.
                    logger.warning("delivery socket could not accept", metadata: ["error": "\(String(cString: strerror(errno)))"])
                    pauseAccepting()
                }
                return
            }
            guard pending.count < Self.maximumPending else {
                Glibc.close(descriptor)
                continue
            }
            let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            let deadline = DispatchSource.makeTimerSource(queue: queue)
            reader.setEventHandler { [self] in readAvailable(descriptor) }
            reader.setCancelHandler { Glibc.close(descriptor) }
            deadline.schedule(deadline: .now() + Self.deadline)
            deadline.setEventHandler { [self] in finish(descriptor) }
            pending[descriptor] = Connection(descriptor: descriptor, reader: reader, deadline: deadline)
            reader.resume()
            deadline.resume()
        }
    }

    private func pauseAccepting() {
        guard let accepting, !acceptingPaused else { return }
        accepting.suspend()
        acceptingPaused = true
        queue.asyncAfter(deadline: .now() + Self.acceptPause) { [self] in resumeAccepting() }
    }

    private func resumeAccepting() {
        guard acceptingPaused else { return }
        acceptingPaused = false
        accepting?.resume()
    }

    private func readAvailable(_ descriptor: Int32) {
        guard let connection = pending[descriptor] else { return }
        var buffer = [UInt8](repeating: 0, count: FileTicket.maximumLineLength - connection.line.count)
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
        guard count > 0 else { return finish(descriptor) }
        connection.line += buffer[..<count]
        if let newline = connection.line.firstIndex(of: UInt8(ascii: "\n")) {
            present(String(decoding: connection.line[..<newline], as: UTF8.self), on: descriptor)
        } else if connection.line.count >= FileTicket.maximumLineLength {
            answer(.refused(LightboxError(.badRequest, "A ticket line is at most \(FileTicket.maximumLineLength) bytes, its newline included.")),
                   on: descriptor)
        } else {
            return
        }
        finish(descriptor)
    }

    private func present(_ text: String, on descriptor: Int32) {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        let peer = lightbox_peer_credentials(descriptor, &pid, &uid, &gid) == 0 ? PeerCredentials(processID: pid, userID: uid, groupID: gid) : nil
        guard let ticket = tickets.take(text), let file = ticket.descriptor else {
            return refuse(nil, by: peer, LightboxError(.tokenUnknown, "This delivery ticket is not known: it was used already, expired or was never issued; call provider.open again."), on: descriptor)
        }
        defer { Glibc.close(file) }
        guard ticket.expiresAt > .now else {
            return refuse(ticket, by: peer, LightboxError(.tokenExpired, "This delivery ticket expired; call provider.open again."), on: descriptor)
        }
        guard let peer, peer.processID == ticket.process.processID, peer.userID == ticket.process.userID else {
            return refuse(ticket, by: peer, LightboxError(.notAuthorized, "This delivery ticket was issued to another process; only the process that called provider.open may present it."), on: descriptor)
        }
        if answer(.delivered(fileSize: ticket.fileSize), on: descriptor, attaching: file) {
            onOutcome(.delivered(ticket, to: peer))
        } else {
            onOutcome(.refused(ticket, by: peer, LightboxError(.cancelled, "The process went away before its descriptor was sent.")))
        }
    }

    private func refuse(_ ticket: FileTickets.Ticket?, by peer: PeerCredentials?, _ error: LightboxError, on descriptor: Int32) {
        answer(.refused(error), on: descriptor)
        onOutcome(.refused(ticket, by: peer, error))
    }

    /// Sends one answer line (with `file` attached when given); whether it was sent whole.
    @discardableResult
    private func answer(_ answer: DeliveryAnswer, on descriptor: Int32, attaching file: Int32 = -1) -> Bool {
        var line = (try? JSONEncoder().encode(answer)) ?? Data(#"{"status":"error","code":"internal"}"#.utf8)
        line.append(UInt8(ascii: "\n"))
        let sent = line.withUnsafeBytes { lightbox_send_with_descriptor(descriptor, $0.baseAddress, $0.count, file) }
        return sent == line.count
    }

    private func finish(_ descriptor: Int32) {
        guard let connection = pending.removeValue(forKey: descriptor) else { return }
        connection.deadline.cancel()
        connection.reader.cancel()
    }
}

import Foundation
import Logging
import LightboxProtocol
import Synchronization

/// How a stream ended, for the service that started it (audit, clean-up).
public enum StreamOutcome: Sendable, Equatable {
    case completed(bytes: Int64)
    case cancelled
    case failed(String)
    /// The client went away or stopped granting credit.
    case abandoned
}

/// What a handler asks the server's I/O thread to do; only Sendable values cross over.
enum ServerCommand: Sendable {
    case send(peer: Data, frames: [Data])
    case startStream(StreamStart)
}

struct StreamStart: Sendable {
    var peer: Data
    var requestID: String
    var source: any ChunkSource
    var credit: Int
    var chunkSize: Int
    var type: UTType?
    var suggestedName: String?
    var onFinish: @Sendable (StreamOutcome) -> Void
}

/// The way from handler tasks to the connections: a reply goes straight to its connection when
/// nothing of that peer waits on the server's I/O thread, and otherwise queues behind it there, so
/// one request's replies never overtake each other. Streams always start on the I/O thread.
final class ServerOutbox: Sendable {
    let wakeup = WakeupPipe()
    /// Connections known to be gone, shared with the handlers' responders.
    let peers = PeerTracker()
    private let commands = Mutex<[ServerCommand]>([])
    private let socket = Mutex<CurveRouterSocket?>(nil)

    /// The endpoint replies may go to directly, once it is bound.
    func attach(_ socket: CurveRouterSocket) {
        self.socket.withLock { $0 = socket }
    }

    func send(_ frames: [Data]) {
        guard let peer = frames.first else { return }
        if let socket = socket.withLock({ $0 }), socket.deliverDirectly(frames) { return }
        enqueue(.send(peer: peer, frames: frames))
    }

    func enqueue(_ command: ServerCommand) {
        commands.withLock { $0.append(command) }
        wakeup.signal()
    }

    func takeAll() -> [ServerCommand] {
        commands.withLock { commands in
            defer { commands.removeAll() }
            return commands
        }
    }
}

/// Answers one request. Any number of `progress`/`event` replies, then exactly one final reply
/// (`succeed`, `fail`, or the end of a `stream`).
public struct Responder: Sendable {
    let outbox: ServerOutbox
    let peer: Data
    public let requestID: String
    let logger: Logger

    /// False once the connection this request came on is known to be gone (a send to it failed, its
    /// heartbeats stopped, or it was dropped for not reading). Long-lived requests (watches) check it.
    public var isConnected: Bool { !outbox.peers.isGone(peer) }

    public func succeed<Body: Codable & Sendable>(_ body: Body) {
        send(.ok, body)
    }

    public func fail(_ error: LightboxError) {
        send(.error, error)
    }

    public func progress<Body: Codable & Sendable>(_ body: Body) {
        send(.progress, body)
    }

    public func event<Body: Codable & Sendable>(_ body: Body) {
        send(.event, body)
    }

    public func send<Body: Codable & Sendable>(_ status: ReplyStatus, _ body: Body, attachments: [Data] = []) {
        let header: Data
        do {
            header = try WireCoding.encode(ReplyEnvelope(id: requestID, status: status, body: body))
        } catch {
            // Never silence: the client would wait for its timeout. It is told, and the cause logged.
            logger.error("a reply could not be encoded", metadata: ["id": "\(requestID)", "status": "\(status)", "cause": "\(error)"])
            let failure = LightboxError(.internal, "The service could not encode its answer to this request; the reason is in the service's log.")
            guard let fallback = try? WireCoding.encode(ReplyEnvelope(id: requestID, status: .error, body: failure)) else { return }
            outbox.send([peer, fallback])
            return
        }
        outbox.send([peer, header] + attachments)
    }

    /// Streams `source` as `chunk` replies under the client's credit, then ends with an `ok` carrying
    /// a `StreamCompletion`. The transport owns and closes the source from here on.
    public func stream(
        _ source: any ChunkSource, credit: Int, chunkSize: Int, type: UTType?, suggestedName: String?,
        onFinish: @escaping @Sendable (StreamOutcome) -> Void = { _ in }
    ) {
        outbox.enqueue(.startStream(StreamStart(
            peer: peer, requestID: requestID, source: source, credit: max(1, credit), chunkSize: chunkSize,
            type: type, suggestedName: suggestedName, onFinish: onFinish)))
    }
}

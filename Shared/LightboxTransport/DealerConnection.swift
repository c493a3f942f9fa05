import CZeroMQ
import Foundation
import LightboxProtocol
import Logging
import Synchronization

/// A client's connection to one service: a CURVE DEALER socket owned by its own I/O thread.
/// Requests carry correlation ids; every request has an idle time-out, so a dead or unreachable
/// service (or a refused key) ends in `timeout` instead of a hang.
public final class DealerConnection: Sendable {
    public struct Configuration: Sendable {
        public var endpoint: String
        public var serverKey: String
        public var keyPair: CurveKeyPair
        public var defaultTimeout: Duration = .seconds(10)
        public var highWaterMark: Int32 = 1000
        /// ZMTP heartbeats, so a dead service is noticed and the connection made again.
        public var heartbeatInterval: Duration = .seconds(5)
        public var heartbeatTimeout: Duration = .seconds(15)
        /// The launch (this process) the connection belongs to, said first (`service.hello`) and
        /// again after every reconnection; nil says nothing (the connection is a launch of its own).
        public var launch: String?

        public init(endpoint: String, serverKey: String, keyPair: CurveKeyPair) {
            self.endpoint = endpoint
            self.serverKey = serverKey
            self.keyPair = keyPair
        }
    }

    public let configuration: Configuration
    private let core: ConnectionCore

    public init(_ configuration: Configuration, logger: Logger = Logger(label: "lightbox.client")) throws {
        self.configuration = configuration
        let greeting = try configuration.launch.map { [try WireCoding.encode(RequestEnvelope(id: "hello", op: .hello, body: Hello(launch: $0)))] }
        let core = ConnectionCore(endpoint: configuration.endpoint, greeting: greeting)
        self.core = core
        try IOThread.start(name: "lightbox-dealer") { ready in
            let socket: Socket
            let monitor: Socket
            do {
                socket = try Socket(type: ZMQ_DEALER)
                try socket.set(ZMQ_SNDHWM, configuration.highWaterMark)
                try socket.set(ZMQ_RCVHWM, configuration.highWaterMark)
                try socket.set(ZMQ_RECONNECT_IVL, 100)
                try socket.setHeartbeats(interval: configuration.heartbeatInterval, timeout: configuration.heartbeatTimeout,
                                         timeToLive: configuration.heartbeatTimeout)
                try socket.makeCurveClient(configuration.keyPair, serverKey: configuration.serverKey)
                // Lost connections are counted (a service that restarted has forgotten its streams).
                let monitorEndpoint = "inproc://lightbox-dealer-monitor-\(UUID().uuidString)"
                guard zmq_socket_monitor(socket.handle, monitorEndpoint, ZMQ_EVENT_DISCONNECTED) == 0 else {
                    throw TransportError.zmq("zmq_socket_monitor")
                }
                monitor = try Socket(type: ZMQ_PAIR)
                try monitor.connect(monitorEndpoint)
                try socket.connect(configuration.endpoint)
            } catch {
                ready(error)
                return
            }
            ready(nil)
            core.run(socket: socket, monitor: monitor, logger: logger)
            // Monitoring stops before either socket closes: libzmq sends events with a blocking
            // send, and one sent to a monitor nobody reads any more would stall the context's I/O thread.
            zmq_socket_monitor(socket.handle, nil, 0)
            socket.close()
            monitor.close()
        }
    }

    deinit { core.stop() }

    /// How many times the connection to the service was lost so far. A change means the service may
    /// have restarted: whatever it was streaming to this connection (watches, follows) is gone.
    public var disconnections: Int { core.disconnections.load(ordering: .relaxed) }

    /// Closes the socket; requests still waiting end with `cancelled`.
    public func close() { core.stop() }

    /// Sends a request and returns every reply to it, ending after the final `ok` (an `error` reply
    /// is thrown). `timeout` is the longest wait for the next reply.
    public func send<Body: Codable & Sendable>(
        _ op: OperationName, _ body: Body, attachments: [Data] = [], timeout: Duration? = nil,
        id: String = UUID().uuidString
    ) -> AsyncThrowingStream<IncomingReply, Error> {
        let (stream, continuation) = AsyncThrowingStream<IncomingReply, Error>.makeStream()
        let header: Data
        do {
            header = try WireCoding.encode(RequestEnvelope(id: id, op: op, body: body))
        } catch {
            continuation.finish(throwing: LightboxError(.badRequest, "Cannot encode the request: \(error)"))
            return stream
        }
        let core = self.core
        continuation.onTermination = { termination in
            if case .cancelled = termination, core.forget(id) {
                core.enqueue([try! WireCoding.encode(RequestEnvelope(id: UUID().uuidString, op: .streamCancel, body: StreamCancel(stream: id)))])
            }
        }
        core.register(id: id, continuation: continuation, timeout: timeout ?? configuration.defaultTimeout)
        core.enqueue([header] + attachments)
        return stream
    }

    /// Sends a request and returns the body of its final `ok` reply, ignoring progress and events.
    public func request<Body: Codable & Sendable, Reply: Codable & Sendable>(
        _ op: OperationName, _ body: Body, as reply: Reply.Type = Reply.self, timeout: Duration? = nil
    ) async throws -> Reply {
        for try await message in send(op, body, timeout: timeout) where message.status == .ok {
            return try message.body(Reply.self)
        }
        throw LightboxError(.internal, "The service ended \(op) without a final reply.")
    }

    /// Sends a message that has no reply (stream credit).
    public func post<Body: Codable & Sendable>(_ op: OperationName, _ body: Body) {
        guard let header = try? WireCoding.encode(RequestEnvelope(id: UUID().uuidString, op: op, body: body)) else { return }
        core.enqueue([header])
    }
}

/// State shared between callers and the I/O thread.
private final class ConnectionCore: Sendable {
    struct Pending {
        var continuation: AsyncThrowingStream<IncomingReply, Error>.Continuation
        var timeout: Duration
        var deadline: ContinuousClock.Instant
    }

    let endpoint: String
    /// Sent before anything else, and again first after each lost connection (`service.hello`).
    let greeting: [Data]?
    let wakeup = WakeupPipe()
    private let outbox = Mutex<[[Data]]>([])
    private let pending = Mutex<[String: Pending]>([:])
    private let stopped = Flag()
    let disconnections = Atomic<Int>(0)

    init(endpoint: String, greeting: [Data]?) {
        self.endpoint = endpoint
        self.greeting = greeting
    }

    func register(id: String, continuation: AsyncThrowingStream<IncomingReply, Error>.Continuation, timeout: Duration) {
        pending.withLock { $0[id] = Pending(continuation: continuation, timeout: timeout, deadline: .now + timeout) }
    }

    /// Drops a pending request; true when it was still waiting.
    func forget(_ id: String) -> Bool {
        pending.withLock { $0.removeValue(forKey: id) } != nil
    }

    func enqueue(_ frames: [Data]) {
        guard !stopped.isSet else { return }
        outbox.withLock { $0.append(frames) }
        wakeup.signal()
    }

    func stop() {
        stopped.set()
        wakeup.signal()
    }

    func run(socket: Socket, monitor: Socket, logger: Logger) {
        var unsent: [[Data]] = greeting.map { [$0] } ?? []
        while !stopped.isSet {
            unsent += outbox.withLock { outbox in
                defer { outbox.removeAll() }
                return outbox
            }
            do {
                while let frames = unsent.first, try socket.send(frames) { unsent.removeFirst() }
                var items = [
                    zmq_pollitem_t.socket(socket, events: ZMQ_POLLIN | (unsent.isEmpty ? 0 : ZMQ_POLLOUT)),
                    .fd(wakeup.readFD),
                    .socket(monitor, events: ZMQ_POLLIN),
                ]
                try poll(&items, timeoutMilliseconds: millisecondsUntilNextDeadline())
                if items[1].isReadable { wakeup.drain() }
                // Each monitor event is two frames (event and value, endpoint); only disconnects are asked for.
                var lost = false
                while try monitor.receive() != nil {
                    disconnections.add(1, ordering: .relaxed)
                    lost = true
                }
                // libzmq connects again by itself; the new connection hears the launch before what follows.
                if lost, let greeting, unsent.first != greeting { unsent.insert(greeting, at: 0) }
                while let message = try socket.receive() { deliver(message, logger: logger) }
            } catch {
                logger.error("connection error", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
            }
            expireDeadlines()
        }
        let waiting = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for entry in waiting.values {
            entry.continuation.finish(throwing: LightboxError(.cancelled, "The connection to \(endpoint) was closed."))
        }
    }

    private func deliver(_ message: ReceivedMessage, logger: Logger) {
        guard let header = message.frames.first, let head = try? WireCoding.decode(ReplyHead.self, from: header) else {
            logger.warning("ignored a reply without a readable header", metadata: ["endpoint": "\(endpoint)"])
            return
        }
        let reply = IncomingReply(id: head.id, status: head.status, header: header, attachments: Array(message.frames.dropFirst()))
        let entry = pending.withLock { pending -> Pending? in
            guard var entry = pending[head.id] else { return nil }
            if head.status.isFinal {
                pending[head.id] = nil
            } else {
                entry.deadline = .now + entry.timeout
                pending[head.id] = entry
            }
            return entry
        }
        guard let entry else { return }
        switch head.status {
        case .error:
            entry.continuation.finish(throwing: reply.error())
        case .ok:
            entry.continuation.yield(reply)
            entry.continuation.finish()
        default:
            entry.continuation.yield(reply)
        }
    }

    private func millisecondsUntilNextDeadline() -> Int {
        let next = pending.withLock { $0.values.map(\.deadline).min() }
        guard let next else { return 1000 }
        let remaining = next - .now
        return Int(max(0, min(1000, remaining.milliseconds + 1)))
    }

    private func expireDeadlines() {
        let now = ContinuousClock.now
        let expired = pending.withLock { pending -> [Pending] in
            let ids = pending.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { pending.removeValue(forKey: $0) }
        }
        for entry in expired {
            entry.continuation.finish(throwing: LightboxError(
                .timeout,
                "No answer from \(endpoint) within \(entry.timeout). Is the service running, and is this key registered with it?"))
        }
    }
}

import CZeroMQ
import Foundation
import LightboxProtocol
import Logging
import Synchronization

/// A service's one ROUTER endpoint: CURVE on, peers identified by ZAP, requests handed to an async
/// handler as tasks, replies and credit-based streams sent back from the socket's own I/O thread.
public final class RouterServer: Sendable {
    public typealias Handler = @Sendable (IncomingRequest, Responder) async -> Void

    public struct Configuration: Sendable {
        public var endpoint: String
        public var keyPair: CurveKeyPair
        /// Messages queued per peer before sends report EAGAIN. Streams stay far below it by credit.
        public var highWaterMark: Int32 = 256
        /// Largest message accepted; bigger ones drop the connection (libzmq's ZMQ_MAXMSGSIZE).
        public var maximumMessageSize: Int64 = 16 << 20
        /// Handlers running at once before new requests get `busy`.
        public var maximumConcurrentRequests = 512
        /// A stream that gets no credit for this long is dropped.
        public var streamIdleTimeout: Duration = .seconds(120)

        public init(endpoint: String, keyPair: CurveKeyPair) {
            self.endpoint = endpoint
            self.keyPair = keyPair
        }
    }

    private let configuration: Configuration
    private let outbox = ServerOutbox()
    private let stopped = Flag()
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let isFinished = Flag()
    private let inFlight = RequestCounter()
    private let logger: Logger

    /// Binds the endpoint (the ZAP handler must already be running) and starts serving with `handler`.
    public init(_ configuration: Configuration, logger: Logger, handler: @escaping Handler) throws {
        self.configuration = configuration
        self.logger = logger
        let outbox = self.outbox
        let stopped = self.stopped
        let inFlight = self.inFlight
        try IOThread.start(name: "lightbox-router") { [self] ready in
            let socket: Socket
            do {
                socket = try Socket(type: ZMQ_ROUTER)
                try socket.set(ZMQ_ROUTER_MANDATORY, 1)
                try socket.set(ZMQ_SNDHWM, configuration.highWaterMark)
                try socket.set(ZMQ_RCVHWM, configuration.highWaterMark)
                try socket.set(ZMQ_MAXMSGSIZE, int64: configuration.maximumMessageSize)
                try socket.makeCurveServer(configuration.keyPair, domain: ZAPHandler.domain)
                try socket.bind(configuration.endpoint)
            } catch {
                ready(error)
                return
            }
            ready(nil)
            var loop = RouterLoop(socket: socket, outbox: outbox, configuration: configuration, logger: logger,
                                  inFlight: inFlight, handler: handler)
            loop.run(until: stopped)
            socket.close()
            self.markFinished()
        }
    }

    /// Stops serving: the I/O thread closes the socket (linger 0) and `waitUntilStopped` returns.
    public func stop() {
        stopped.set()
        outbox.wakeup.signal()
    }

    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let resumeNow = finished.withLock { slot -> Bool in
                if isFinished.isSet { return true }
                slot = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func markFinished() {
        let continuation = finished.withLock { slot -> CheckedContinuation<Void, Never>? in
            isFinished.set()
            defer { slot = nil }
            return slot
        }
        continuation?.resume()
    }
}

/// The state the I/O thread owns: the socket, running streams, and sends waiting for room.
private struct RouterLoop {
    let socket: Socket
    let outbox: ServerOutbox
    let configuration: RouterServer.Configuration
    let logger: Logger
    let inFlight: RequestCounter
    let handler: RouterServer.Handler
    var streams: [StreamKey: OutgoingStream] = [:]
    /// Replies that met a full pipe (EAGAIN), retried in order when the socket is writable.
    var backlog: [[Data]] = []

    init(socket: Socket, outbox: ServerOutbox, configuration: RouterServer.Configuration, logger: Logger,
         inFlight: RequestCounter, handler: @escaping RouterServer.Handler) {
        self.socket = socket
        self.outbox = outbox
        self.configuration = configuration
        self.logger = logger
        self.inFlight = inFlight
        self.handler = handler
    }

    mutating func run(until stopped: Flag) {
        while !stopped.isSet {
            let hasWork = streams.values.contains { $0.canSend }
            let timeout = hasWork ? 0 : (backlog.isEmpty ? 1000 : 100)
            var items = [
                zmq_pollitem_t.socket(socket, events: ZMQ_POLLIN | (backlog.isEmpty ? 0 : ZMQ_POLLOUT)),
                .fd(outbox.wakeup.readFD),
            ]
            do {
                try poll(&items, timeoutMilliseconds: timeout)
                if items[1].isReadable { outbox.wakeup.drain() }
                for command in outbox.takeAll() { perform(command) }
                // Bounded so a flood of requests cannot starve streams and replies.
                for _ in 0..<256 {
                    guard let message = try socket.receive() else { break }
                    dispatch(message)
                }
                flushBacklog()
                pumpStreams()
                expireIdleStreams()
            } catch {
                logger.error("router loop error", metadata: ["error": "\(error)"])
            }
        }
        for stream in streams.values { stream.finish(.abandoned) }
    }

    // MARK: Incoming

    mutating func dispatch(_ message: ReceivedMessage) {
        guard let peer = message.frames.first else { return }
        guard message.frames.count >= 2 else {
            reply(peer: peer, id: "", error: LightboxError(.badRequest, "A request needs a JSON header frame; this message had none."))
            return
        }
        let header = message.frames[1]
        let head: RequestHead
        do {
            head = try WireCoding.decode(RequestHead.self, from: header)
        } catch {
            reply(peer: peer, id: "", error: LightboxError(.badRequest, "The header frame is not a JSON object with v, id, op and body (\(Self.describe(error)))."))
            return
        }
        let id = head.id ?? ""
        guard let version = head.v, version == protocolVersion else {
            let said = head.v.map { "version \($0)" } ?? "no version"
            reply(peer: peer, id: id, error: LightboxError(.unsupportedVersion, "The header says \(said); this service speaks version \(protocolVersion) (\"v\":\(protocolVersion))."))
            return
        }
        guard let op = head.op, !id.isEmpty else {
            reply(peer: peer, id: id, error: LightboxError(.badRequest, "The header needs a non-empty \"id\" and an \"op\"."))
            return
        }
        guard let userID = message.userID, let principal = Principal(userId: userID) else {
            reply(peer: peer, id: id, error: LightboxError(.notAuthorized, "This connection has no authenticated identity."))
            return
        }
        let request = IncomingRequest(principal: principal, id: id, op: op, header: header,
                                      attachments: Array(message.frames.dropFirst(2)), peer: peer)
        switch op {
        case .streamCredit: grantCredit(peer: peer, request: request)
        case .streamCancel: cancelStream(peer: peer, request: request)
        default: startHandler(peer: peer, request: request)
        }
    }

    func startHandler(peer: Data, request: IncomingRequest) {
        let responder = Responder(outbox: outbox, peer: peer, requestID: request.id)
        guard inFlight.enter(limit: configuration.maximumConcurrentRequests) else {
            responder.fail(LightboxError(.busy, "The service is handling too many requests; try again in a moment."))
            return
        }
        let handler = self.handler
        let inFlight = self.inFlight
        Task {
            await handler(request, responder)
            inFlight.leave()
        }
    }

    mutating func grantCredit(peer: Data, request: IncomingRequest) {
        guard let credit = try? request.body(StreamCredit.self) else { return }
        guard var stream = streams[StreamKey(peer: peer, requestID: credit.stream)] else { return }
        stream.credit += max(0, min(credit.credit, 1024))
        stream.lastCredit = .now
        streams[stream.key] = stream
    }

    mutating func cancelStream(peer: Data, request: IncomingRequest) {
        guard let cancel = try? request.body(StreamCancel.self),
              let stream = streams.removeValue(forKey: StreamKey(peer: peer, requestID: cancel.stream)) else { return }
        send([peer] + Self.header(id: stream.key.requestID, status: .error,
                                  body: LightboxError(.cancelled, "The load was cancelled by its client.")))
        stream.finish(.cancelled)
    }

    // MARK: Outgoing

    mutating func perform(_ command: ServerCommand) {
        switch command {
        case .send(_, let frames):
            send(frames)
        case .startStream(let start):
            let stream = OutgoingStream(start)
            guard streams[stream.key] == nil else {
                // The running stream keeps going; the duplicate is refused (its reply shares the id).
                send([start.peer] + Self.header(id: start.requestID, status: .error, body: LightboxError(
                    .badRequest, "A stream with request id \(start.requestID) is already running; use a new id for each request.")))
                stream.finish(.failed("duplicate request id"))
                return
            }
            streams[stream.key] = stream
        }
    }

    mutating func reply(peer: Data, id: String, error: LightboxError) {
        logger.info("refused a request", metadata: ["code": "\(error.code)", "id": "\(id)"])
        send([peer] + Self.header(id: id, status: .error, body: error))
    }

    /// Sends now, or queues behind earlier sends that met a full pipe; a vanished peer is dropped.
    @discardableResult
    mutating func send(_ frames: [Data]) -> Bool {
        if !backlog.isEmpty {
            backlog.append(frames)
            return true
        }
        do {
            if try socket.send(frames) { return true }
            backlog.append(frames)
            return true
        } catch {
            logger.debug("dropped a reply to a peer that is gone", metadata: ["error": "\(error)"])
            return false
        }
    }

    mutating func flushBacklog() {
        while let frames = backlog.first {
            do {
                guard try socket.send(frames) else { return }
            } catch {
                logger.debug("dropped a queued reply", metadata: ["error": "\(error)"])
            }
            backlog.removeFirst()
        }
    }

    mutating func pumpStreams() {
        guard backlog.isEmpty else { return }
        for key in Array(streams.keys) {
            guard var stream = streams[key] else { continue }
            while stream.canSend {
                let frames: [Data]
                let isLast: Bool
                do {
                    (frames, isLast) = try stream.nextMessage()
                } catch {
                    streams[key] = nil
                    send([key.peer] + Self.header(id: key.requestID, status: .error,
                                                  body: LightboxError(.badMedia, "Reading the file failed: \(error)")))
                    stream.finish(.failed("\(error)"))
                    break
                }
                guard send([key.peer] + frames) else {
                    streams[key] = nil
                    stream.finish(.abandoned)
                    break
                }
                if isLast {
                    streams[key] = nil
                    stream.finish(.completed(bytes: stream.completed))
                    break
                }
                streams[key] = stream
                if !backlog.isEmpty { return }
            }
        }
    }

    mutating func expireIdleStreams() {
        let now = ContinuousClock.now
        for (key, stream) in streams where stream.credit == 0 && now - stream.lastCredit > configuration.streamIdleTimeout {
            streams[key] = nil
            send([key.peer] + Self.header(id: key.requestID, status: .error, body: LightboxError(
                .timeout, "No stream.credit came for \(configuration.streamIdleTimeout); the load was dropped. Grant credit as chunks are consumed.")))
            stream.finish(.abandoned)
            logger.info("dropped a stream that got no credit", metadata: ["id": "\(key.requestID)"])
        }
    }

    static func header<Body: Codable & Sendable>(id: String, status: ReplyStatus, body: Body) -> [Data] {
        [(try? WireCoding.encode(ReplyEnvelope(id: id, status: status, body: body))) ?? Data("{}".utf8)]
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError { return DecodingError.describe(error) }
        return "\(error)"
    }
}

struct StreamKey: Hashable {
    var peer: Data
    var requestID: String
}

/// One credit-based stream on the I/O thread: it reads a chunk only when the client has room for it.
struct OutgoingStream {
    let key: StreamKey
    let start: StreamStart
    var credit: Int
    var completed: Int64 = 0
    var lastCredit = ContinuousClock.now
    var hasher = SHA256Hasher()
    var isDrained = false

    init(_ start: StreamStart) {
        self.start = start
        key = StreamKey(peer: start.peer, requestID: start.requestID)
        credit = start.credit
    }

    var canSend: Bool { credit > 0 || isDrained }

    /// The next chunk message, or the final `ok` once the source is empty (sent without credit).
    mutating func nextMessage() throws -> (frames: [Data], isLast: Bool) {
        let data = isDrained ? Data() : try start.source.read(upTo: start.chunkSize)
        if data.isEmpty {
            let completion = StreamCompletion(bytes: completed, sha256: hasher.finalize(), type: start.type,
                                              suggestedName: start.suggestedName)
            return (RouterLoop.header(id: key.requestID, status: .ok, body: completion), true)
        }
        hasher.update(data)
        let header = ChunkHeader(offset: completed, length: data.count, completed: completed + Int64(data.count),
                                 total: start.source.totalBytes)
        completed += Int64(data.count)
        credit -= 1
        // The source ended exactly at a chunk boundary when the total is reached: finish without new credit.
        if completed >= start.source.totalBytes { isDrained = true }
        return (RouterLoop.header(id: key.requestID, status: .chunk, body: header) + [data], false)
    }

    func finish(_ outcome: StreamOutcome) {
        start.source.close()
        start.onFinish(outcome)
    }
}

/// Counts running handlers so a flood gets `busy` instead of unbounded tasks.
final class RequestCounter: Sendable {
    private let count = Mutex(0)

    func enter(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() {
        count.withLock { $0 -= 1 }
    }
}

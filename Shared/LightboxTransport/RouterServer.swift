import CZeroMQ
import Foundation
import LightboxProtocol
import Logging
import Synchronization

/// A service's one ROUTER endpoint: CURVE on, peers identified by their key (`identify`), requests
/// handed to an async handler as tasks, replies and credit-based streams sent back from the
/// server's own I/O thread. The endpoint is a CurveRouterSocket (ZMTP on swift-nio), so every
/// limit holds before bytes are kept; clients are plain libzmq DEALER sockets.
public final class RouterServer: Sendable {
    public typealias Handler = @Sendable (IncomingRequest, Responder) async -> Void

    public struct Configuration: Sendable {
        public var endpoint: String
        public var keyPair: CurveKeyPair
        /// Who a client's CURVE public key belongs to: `.unknown` refuses the connection in its
        /// handshake (ERROR); `.unavailable` closes it without ERROR, so the client connects again.
        public var identify: @Sendable (_ publicKey: String) async -> Identification
        /// Messages waiting per connection each way: requests not yet taken (its reading pauses
        /// until they are) and replies not yet written (sends report full). Streams stay far below
        /// it by credit.
        public var highWaterMark = 256
        /// Largest single frame accepted; a bigger frame header closes the connection, before any
        /// of the frame is read. The margin over 16 MiB lets a 16 MiB file through with its header.
        public var maximumFrameBytes = (16 << 20) + (64 << 10)
        /// Largest whole message (all frames together, each counted with 64 bytes of overhead),
        /// counted from each frame as it is read: a bigger one is opened frame by frame and dropped
        /// (never held whole) and answered `badRequest`.
        public var maximumMessageBytes = (16 << 20) + (1 << 20)
        /// Most frames in one message (routing id aside); more are dropped the same way.
        public var maximumMessageFrames = 64
        /// Largest HELLO or INITIATE frame: INITIATE carries the client's metadata.
        public var maximumHandshakeFrameBytes = 16 << 10
        /// Time a new connection has to send HELLO, and to finish its handshake.
        public var helloTimeout: Duration = .seconds(5)
        public var handshakeTimeout: Duration = .seconds(30)
        /// Connections that have not finished their handshake, in all and from one address: more
        /// are closed as they are accepted.
        public var maximumHandshakes = 256
        public var maximumHandshakesPerAddress = 64
        /// Connections one app may hold at once; the owner and each service have their own caps.
        public var maximumConnectionsPerApp = 16
        public var maximumConnectionsPerOwner = 32
        public var maximumConnectionsPerService = 32
        /// Bytes of large frames (over 64 KiB) all connections may be reading at once; a connection
        /// that would pass it stops reading until there is room.
        public var readBudgetBytes = 128 << 20
        /// `identify` calls running at once (the picker asks lightbox-auth); further handshakes wait.
        public var maximumIdentifiesInFlight = 4
        /// Handlers running at once for all apps together before new app requests get `busy`.
        public var maximumConcurrentRequests = 512
        /// Handlers running at once for any one app.
        public var maximumRequestsPerApp = 64
        /// Handlers running at once for the owner, and for each service: outside the apps' pool.
        public var maximumPrivilegedRequests = 128
        /// Replies kept for a peer with `highWaterMark` replies not yet written. Past
        /// it, or when nothing could be sent to it for `stalledPeerTimeout`, the peer is dropped:
        /// its queued replies are discarded, its streams ended and its connection closed.
        public var maximumQueuedReplies = 1024
        /// Bytes of those replies: past either bound the peer is dropped the same way.
        public var maximumQueuedReplyBytes = 64 << 20
        /// Bytes of replies handed to a connection and not yet written; past it, as past
        /// `highWaterMark` replies, further replies wait in the peer's queue.
        public var maximumOutboundBytes = 4 << 20
        public var stalledPeerTimeout: Duration = .seconds(30)
        /// ZMTP heartbeats, so a peer that vanished without closing is noticed and released.
        public var heartbeatInterval: Duration = .seconds(5)
        public var heartbeatTimeout: Duration = .seconds(15)
        /// A stream that gets no credit for this long is dropped.
        public var streamIdleTimeout: Duration = .seconds(120)

        public init(endpoint: String, keyPair: CurveKeyPair, identify: @escaping @Sendable (_ publicKey: String) async -> Identification) {
            self.endpoint = endpoint
            self.keyPair = keyPair
            self.identify = identify
        }
    }

    private let configuration: Configuration
    private let outbox = ServerOutbox()
    private let stopped = Flag()
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let isFinished = Flag()
    private let inFlight: RequestAllowance
    private let handlers = RunningHandlers()
    /// Set when a graceful shutdown begins: new requests are refused, running ones finish.
    private let draining = Flag()
    private let streamCount = ActiveStreamCount()
    private let logger: Logger

    /// Binds the endpoint and starts serving with `handler`.
    public init(_ configuration: Configuration, logger: Logger, handler: @escaping Handler) throws {
        self.configuration = configuration
        self.logger = logger
        inFlight = RequestAllowance(.init(perApp: configuration.maximumRequestsPerApp, allApps: configuration.maximumConcurrentRequests,
                                          perPrivileged: configuration.maximumPrivilegedRequests))
        let outbox = self.outbox
        let stopped = self.stopped
        let inFlight = self.inFlight
        let handlers = self.handlers
        let draining = self.draining
        let streamCount = self.streamCount
        try IOThread.start(name: "lightbox-router") { [self] ready in
            let socket: CurveRouterSocket
            let intake = RequestIntake(maximumMessageBytes: configuration.maximumMessageBytes, logger: logger, outbox: outbox,
                                       inFlight: inFlight, handlers: handlers, draining: draining, handler: handler)
            do {
                let limits = CurveRouterSocket.Limits(
                    frameBytes: configuration.maximumFrameBytes, messageBytes: configuration.maximumMessageBytes,
                    messageFrames: configuration.maximumMessageFrames,
                    queuedMessages: configuration.highWaterMark, outboundBytes: configuration.maximumOutboundBytes,
                    heartbeatInterval: configuration.heartbeatInterval,
                    heartbeatTimeout: configuration.heartbeatTimeout, handshakeFrameBytes: configuration.maximumHandshakeFrameBytes,
                    helloTimeout: configuration.helloTimeout, handshakeTimeout: configuration.handshakeTimeout,
                    handshakes: configuration.maximumHandshakes, handshakesPerAddress: configuration.maximumHandshakesPerAddress,
                    connectionsPerApp: configuration.maximumConnectionsPerApp, connectionsPerOwner: configuration.maximumConnectionsPerOwner,
                    connectionsPerService: configuration.maximumConnectionsPerService, readBudgetBytes: configuration.readBudgetBytes,
                    identifiesInFlight: configuration.maximumIdentifiesInFlight)
                socket = try CurveRouterSocket(endpoint: configuration.endpoint, keyPair: configuration.keyPair, limits: limits,
                                               identify: configuration.identify, intake: intake, wakeup: outbox.wakeup, logger: logger) { peer in
                    // Watches and streams of a closed connection are released at once.
                    outbox.peers.markGone(peer)
                }
                outbox.attach(socket)
            } catch {
                ready(error)
                return
            }
            ready(nil)
            var loop = RouterLoop(socket: socket, outbox: outbox, configuration: configuration, logger: logger, streamCount: streamCount)
            loop.run(until: stopped)
            self.markFinished()
        }
    }

    /// Stops serving: the I/O thread closes the socket (linger 0) and `waitUntilStopped` returns.
    public func stop() {
        stopped.set()
        outbox.wakeup.signal()
    }

    /// Stops gracefully: new requests get `busy` ("shutting down"), requests being handled and
    /// streams being sent get up to `gracePeriod` to finish, what is still running then is
    /// cancelled (and given a moment to answer), and the socket closes.
    public func shutDown(gracePeriod: Duration) async {
        draining.set()
        outbox.wakeup.signal()
        let clock = ContinuousClock()
        let deadline = clock.now + gracePeriod
        while clock.now < deadline, handlers.count > 0 || streamCount.current > 0 {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let unfinished = handlers.count
        if unfinished > 0 {
            logger.notice("cancelling requests still running at shutdown", metadata: ["requests": "\(unfinished)"])
            handlers.cancelAll()
            let cancelDeadline = clock.now + .seconds(1)
            while clock.now < cancelDeadline, handlers.count > 0 { try? await Task.sleep(for: .milliseconds(10)) }
        }
        stop()
        await waitUntilStopped()
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

/// Who a connecting key is, as a service's `identify` can tell: known, unknown (the handshake is
/// refused with ERROR, and libzmq gives that socket up), or cannot be told now (lightbox-auth did
/// not answer): the connection is closed without ERROR, so the client's libzmq connects again.
public enum Identification: Sendable, Equatable {
    case known(Principal)
    case unknown
    case unavailable
}

/// Replies waiting for one peer whose pipe was full; only that peer waits for them.
struct PeerQueue {
    var messages: [[Data]] = []
    /// Bytes of `messages`.
    var bytes = 0
    /// When a message last went out to this peer (or the queue began).
    var lastProgress = ContinuousClock.now
}

/// The state the I/O thread owns: the socket, running streams, and per-peer sends waiting for room.
private struct RouterLoop {
    let socket: CurveRouterSocket
    let outbox: ServerOutbox
    let configuration: RouterServer.Configuration
    let logger: Logger
    let streamCount: ActiveStreamCount
    var streams: [StreamKey: OutgoingStream] = [:]
    /// Replies that met a full pipe (EAGAIN), per peer, retried in order; other peers never wait on them.
    var queues: [Data: PeerQueue] = [:]

    init(socket: CurveRouterSocket, outbox: ServerOutbox, configuration: RouterServer.Configuration, logger: Logger,
         streamCount: ActiveStreamCount) {
        self.socket = socket
        self.outbox = outbox
        self.configuration = configuration
        self.logger = logger
        self.streamCount = streamCount
    }

    mutating func run(until stopped: Flag) {
        while !stopped.isSet {
            let hasWork = socket.hasMessages || streams.values.contains { $0.canSend && queues[$0.key.peer] == nil }
            // A waiting queue is retried every few milliseconds.
            let timeout = hasWork ? 0 : (queues.isEmpty ? 1000 : 10)
            var items = [zmq_pollitem_t.fd(outbox.wakeup.readFD)]
            do {
                try poll(&items, timeoutMilliseconds: timeout)
                if items[0].isReadable { outbox.wakeup.drain() }
                socket.wakeupHandled()
                for command in outbox.takeAll() { perform(command) }
                // Bounded so a flood of requests cannot starve streams and replies.
                for _ in 0..<256 {
                    guard let request = socket.takeRequest() else { break }
                    switch request.op {
                    case .streamCredit: grantCredit(peer: request.peer, request: request)
                    default: cancelStream(peer: request.peer, request: request)
                    }
                }
                flushQueues()
                pumpStreams()
                expireIdleStreams()
                dropStalledPeers()
                streamCount.store(streams.count)
            } catch {
                logger.error("router loop error", metadata: ["error": "\(error)"])
            }
        }
        // Replies handed over just before the stop (picks cancelled at shutdown) still go out, and
        // the socket gets a moment to write them: a bounded linger instead of none.
        for command in outbox.takeAll() { perform(command) }
        flushQueues()
        socket.close(linger: .milliseconds(250))
        for stream in streams.values { stream.finish(.abandoned) }
    }

    // MARK: Stream control

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
        case .send(let peer, let frames):
            send(frames)
            socket.routedReplyTaken(peer)
        case .startStream(let start):
            let stream = OutgoingStream(start)
            guard !outbox.peers.isGone(start.peer) else {
                stream.finish(.abandoned)
                return
            }
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

    /// Sends now, or queues behind this peer's earlier sends that met its full pipe. Returns false
    /// when the peer is gone (or was dropped) and nothing more will reach it.
    @discardableResult
    mutating func send(_ frames: [Data]) -> Bool {
        guard let peer = frames.first, !outbox.peers.isGone(peer) else { return false }
        if var queue = queues[peer] {
            queue.messages.append(frames)
            queue.bytes += Self.size(of: frames)
            queues[peer] = queue
            if queue.messages.count > configuration.maximumQueuedReplies || queue.bytes > configuration.maximumQueuedReplyBytes {
                drop(peer, because: "more than \(configuration.maximumQueuedReplies) replies or \(configuration.maximumQueuedReplyBytes) bytes waited for it")
                return false
            }
            return true
        }
        switch socket.deliver(frames) {
        case .sent:
            return true
        case .full:
            queues[peer] = PeerQueue(messages: [frames], bytes: Self.size(of: frames))
            return true
        case .unreachable:
            peerGone(peer)
            return false
        }
    }

    static func size(of frames: [Data]) -> Int {
        frames.reduce(0) { $0 + $1.count }
    }

    mutating func flushQueues() {
        for peer in Array(queues.keys) {
            guard var queue = queues[peer] else { continue }
            var sent = 0
            sending: while let frames = queue.messages.first {
                switch socket.deliver(frames) {
                case .sent: sent += 1
                case .full: break sending
                case .unreachable:
                    peerGone(peer)
                    queues[peer] = nil
                    break sending
                }
                queue.bytes -= Self.size(of: frames)
                queue.messages.removeFirst()
            }
            guard queues[peer] != nil else { continue }
            if sent > 0 { queue.lastProgress = .now }
            queues[peer] = queue.messages.isEmpty ? nil : queue
            if queue.messages.isEmpty { socket.setBackedUp(peer, false) }
        }
    }

    /// A peer whose queue has not moved for the time bound is dropped like one whose queue overflowed.
    mutating func dropStalledPeers() {
        let now = ContinuousClock.now
        for (peer, queue) in queues where now - queue.lastProgress > configuration.stalledPeerTimeout {
            drop(peer, because: "nothing could be sent to it for \(configuration.stalledPeerTimeout)")
        }
    }

    /// Gives up on a peer that does not read: its queued replies are discarded, its streams ended,
    /// and its connection closed (a client that reconnects gets a new connection).
    mutating func drop(_ peer: Data, because reason: String) {
        let queued = queues.removeValue(forKey: peer)?.messages.count ?? 0
        outbox.peers.markGone(peer)
        socket.disconnect(peer)
        let ended = endStreams(of: peer)
        logger.warning("dropped a peer that stopped reading", metadata: [
            "peer": "\(peer.lowercaseHex)", "reason": "\(reason)", "discardedReplies": "\(queued)", "endedStreams": "\(ended)"])
    }

    /// This peer's connection is closed (it disconnected, or its heartbeats stopped).
    mutating func peerGone(_ peer: Data) {
        queues[peer] = nil
        outbox.peers.markGone(peer)
        let ended = endStreams(of: peer)
        logger.debug("a peer is gone", metadata: ["peer": "\(peer.lowercaseHex)", "endedStreams": "\(ended)"])
    }

    mutating func endStreams(of peer: Data) -> Int {
        let keys = streams.keys.filter { $0.peer == peer }
        for key in keys { streams.removeValue(forKey: key)?.finish(.abandoned) }
        return keys.count
    }

    mutating func pumpStreams() {
        for key in Array(streams.keys) {
            while queues[key.peer] == nil, var stream = streams[key], stream.canSend {
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
                // Stored before sending: a send that finds the peer gone ends (and removes) its streams.
                streams[key] = isLast ? nil : stream
                guard send([key.peer] + frames) else {
                    if streams.removeValue(forKey: key) != nil || isLast { stream.finish(.abandoned) }
                    break
                }
                if isLast {
                    stream.finish(.completed(bytes: stream.completed))
                    break
                }
                RequestMetrics.streamed(bytes: frames.last?.count ?? 0)
                if !stream.canSend { RequestMetrics.creditStall() }
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


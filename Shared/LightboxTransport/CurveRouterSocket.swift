import Foundation
import LightboxProtocol
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A ZMTP 3.1 ROUTER endpoint with CURVE, served by swift-nio instead of libzmq, so that limits
/// hold before bytes are kept: libzmq gathers a whole multipart message before anyone sees it,
/// however many frames it has. Clients are ordinary libzmq DEALER (or REQ) sockets.
///
/// Each connection is one channel pipeline on its own event loop — a `ZMTPFrameDecoder`, then a
/// `CurveRouterConnection` that owns everything the connection sends and receives. This type holds
/// what spans connections: the listener, the caps on unfinished handshakes and on connections per
/// principal, the `identify` calls, and the connections that finished their handshake.
final class CurveRouterSocket: Sendable {
    typealias Identify = @Sendable (_ publicKey: String) async -> Identification

    struct Limits: Sendable {
        /// Largest frame payload; a bigger frame header closes the connection.
        var frameBytes: Int
        /// Largest message, all frames together (each frame counted with `CurveRouterConnection.frameOverhead`);
        /// past it frames are opened and dropped.
        var messageBytes: Int
        /// Most frames in one message; past it frames are opened and dropped.
        var messageFrames: Int
        /// Items waiting to be written at which a connection's reading pauses (it resumes at half).
        var queuedMessages: Int
        /// Items and bytes waiting to be written past which the peer is dropped.
        var queuedReplies: Int
        var queuedReplyBytes: Int
        /// Bytes handed to the channel and not yet written to the kernel at which it stops being
        /// writable (its write-buffer high-water mark).
        var outboundBytes: Int
        /// A peer whose queue does not move for this long is dropped.
        var stalledPeerTimeout: Duration
        /// A stream that gets no credit for this long is ended.
        var streamIdleTimeout: Duration
        var heartbeatInterval: Duration
        var heartbeatTimeout: Duration
        /// Largest HELLO or INITIATE (INITIATE carries the client's metadata).
        var handshakeFrameBytes: Int
        /// Time from connecting to HELLO, and to READY.
        var helloTimeout: Duration
        var handshakeTimeout: Duration
        /// Connections that have not reached READY. A newcomer past it takes the place of the oldest
        /// unfinished handshake of the source holding the most (`HandshakeSource`), so strangers from
        /// one process or address cannot keep out anyone else.
        var handshakes: Int
        /// Connections of one app, of the owner, of one service.
        var connectionsPerApp: Int
        var connectionsPerOwner: Int
        var connectionsPerService: Int
        /// Bytes of large frames all connections may be reading at once.
        var readBudgetBytes: Int
        /// `identify` calls running at once; later handshakes wait their turn.
        var identifiesInFlight: Int
    }

    private struct State {
        var peers: [Data: PeerConnection] = [:]
        var nextID: UInt64 = 1
        /// Connections that have not reached READY, oldest first, and how many each source holds.
        var unfinished: [(id: ObjectIdentifier, channel: any Channel, source: HandshakeSource)] = []
        var unfinishedBySource: [HandshakeSource: Int] = [:]
        var connectionsByPrincipal: [String: Int] = [:]
        var identifying = 0
        var waitingToIdentify = CircularBuffer<WaitingIdentify>()
    }

    let limits: Limits
    let logger: Logger
    private let identifyKey: Identify
    private let readBudget: ReadBudget
    private let serverKey: CurveServerKey
    /// Where each whole message goes, on its connection's event loop.
    let intake: RequestIntake
    private let state = Mutex(State())
    private let listener = Mutex<(any Channel)?>(nil)

    /// Binds `endpoint` (`tcp://host:port`, `tcp://*:port` or `ipc:///path`).
    init(endpoint: String, keyPair: CurveKeyPair, limits: Limits, identify: @escaping Identify, intake: RequestIntake,
         logger: Logger) throws {
        self.limits = limits
        self.logger = logger
        self.identifyKey = identify
        self.intake = intake
        // Every frame the limits allow must fit the budget, or its connection would wait forever.
        readBudget = ReadBudget(limit: max(limits.readBudgetBytes, 2 * (limits.frameBytes + CurveServerHandshake.messageOverhead)))
        serverKey = try CurveServerKey(keyPair)
        let isTCP = endpoint.hasPrefix("tcp://")
        if endpoint.hasPrefix("ipc://@") {
            throw TransportError(.socket, "cannot listen on \(endpoint): abstract ipc endpoints (ipc://@name) are not supported; use ipc:///path/to/socket")
        }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: isTCP ? 1 : 0)
            .childChannelInitializer { [self] channel in
                // The kernel's word on a unix-socket peer comes first: its process is its source.
                PeerCredentials.of(channel).flatMapThrowing { credentials in
                    if isTCP { try channel.syncOptions?.setOption(.socketOption(.tcp_nodelay), value: 1) }
                    try channel.syncOptions?.setOption(.writeBufferWaterMark, value: .init(low: limits.outboundBytes / 2, high: limits.outboundBytes))
                    try self.accept(channel, address: channel.remoteAddress?.ipAddress ?? "local", credentials: credentials)
                }
            }
        let channel: any Channel
        do {
            if endpoint.hasPrefix("ipc://") {
                channel = try bootstrap.bind(unixDomainSocketPath: String(endpoint.dropFirst(6)), cleanupExistingSocketFile: true).wait()
            } else if isTCP, let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]) {
                var host = String(endpoint.dropFirst(6)[..<colon])
                if host == "*" { host = "0.0.0.0" }
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                channel = try bootstrap.bind(host: host, port: port).wait()
            } else {
                throw TransportError(.socket, "cannot listen on \(endpoint): use tcp://HOST:PORT or ipc:///PATH")
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.socket, "cannot listen on \(endpoint): \(error)")
        }
        listener.withLock { $0 = channel }
    }

    // MARK: Called from connections (their event loops)

    /// A new connection's pipeline: its frame decoder, then its CURVE connection.
    func accept(_ channel: any Channel, address: String, credentials: PeerCredentials?) throws {
        handshakeStarted(channel, from: HandshakeSource(remoteAddress: channel.remoteAddress, credentials: credentials))
        let frameBytes = limits.frameBytes + CurveServerHandshake.messageOverhead
        let decoder = ZMTPFrameDecoder(limits: .init(handshakeFrameBytes: limits.handshakeFrameBytes, frameBytes: frameBytes), budget: readBudget)
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(decoder, maximumBufferSize: frameBytes + (256 << 10)),
            CurveRouterConnection(socket: self, handshake: CurveServerHandshake(key: serverKey), address: address,
                                  credentials: credentials),
        ])
    }

    /// Counts a new connection among the unfinished handshakes. Past `handshakes` one of them is
    /// closed to make room, and a newcomer is never refused: the oldest of the source that holds the
    /// most, whatever its stage. A flood from one process (or one address) then only ever closes
    /// its own connections, and a client that handshakes at once, holding one place, loses it only
    /// when every place is held by a different source. (Oldest-first over all sources let a flood
    /// of R connections a second close anyone whose handshake took longer than `handshakes` / R.)
    func handshakeStarted(_ channel: any Channel, from source: HandshakeSource) {
        let evicted = state.withLock { state -> (channel: any Channel, source: HandshakeSource)? in
            var evicted: (channel: any Channel, source: HandshakeSource)?
            if state.unfinished.count >= limits.handshakes {
                // At most `handshakes` sources: the scan is bounded however many connect.
                let largest = state.unfinishedBySource.max { ($0.value, $0.key == source ? 1 : 0) < ($1.value, $1.key == source ? 1 : 0) }
                if let largest, let index = state.unfinished.firstIndex(where: { $0.source == largest.key }) {
                    let removed = state.unfinished.remove(at: index)
                    state.unfinishedBySource[removed.source, default: 1] -= 1
                    if state.unfinishedBySource[removed.source] == 0 { state.unfinishedBySource[removed.source] = nil }
                    evicted = (removed.channel, removed.source)
                }
            }
            state.unfinished.append((ObjectIdentifier(channel), channel, source))
            state.unfinishedBySource[source, default: 0] += 1
            return evicted
        }
        if let evicted {
            logger.debug("closed an unfinished handshake for a newcomer", metadata: ["source": "\(evicted.source)", "newcomer": "\(source)"])
            evicted.channel.close(promise: nil)
        }
    }

    /// The connection reached READY or closed before it.
    func handshakeEnded(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            guard let index = state.unfinished.firstIndex(where: { $0.id == id }) else { return }
            let source = state.unfinished.remove(at: index).source
            state.unfinishedBySource[source, default: 1] -= 1
            if state.unfinishedBySource[source] == 0 { state.unfinishedBySource[source] = nil }
        }
    }

    /// Who `key` is, from `identify`, with at most `identifiesInFlight` calls running at once. Each
    /// call runs on the event loop of the connection that asked (`executor`), not on Swift's shared
    /// cooperative threads, so a handshake never waits for unrelated work there.
    func identify(_ key: String, on executor: EventLoopTaskExecutor, _ done: @escaping @Sendable (Identification) -> Void) {
        let startsNow = state.withLock { state -> Bool in
            guard state.identifying < limits.identifiesInFlight else {
                state.waitingToIdentify.append((key, executor, done))
                return false
            }
            state.identifying += 1
            return true
        }
        if startsNow { runIdentify(key, on: executor, done) }
    }

    private func runIdentify(_ key: String, on executor: EventLoopTaskExecutor, _ done: @escaping @Sendable (Identification) -> Void) {
        let identifyKey = self.identifyKey
        Task(executorPreference: executor) { [self] in
            done(await identifyKey(key))
            let next = state.withLock { state -> WaitingIdentify? in
                guard let next = state.waitingToIdentify.popFirst() else {
                    state.identifying -= 1
                    return nil
                }
                return next
            }
            if let next { runIdentify(next.key, on: next.executor, next.done) }
        }
    }

    private typealias WaitingIdentify = (key: String, executor: EventLoopTaskExecutor, done: @Sendable (Identification) -> Void)

    func connectionLimit(for principal: Principal) -> Int {
        switch principal {
        case .owner: limits.connectionsPerOwner
        case .service, .portal: limits.connectionsPerService
        default: limits.connectionsPerApp
        }
    }

    /// Registers a connection that finished its handshake, or returns nil when its principal has
    /// as many connections as it may.
    func register(_ channel: any Channel, handler: NIOLoopBound<CurveRouterConnection>, principal: Principal) -> PeerConnection? {
        let limit = connectionLimit(for: principal)
        return state.withLock { state in
            guard state.connectionsByPrincipal[principal.userId, default: 0] < limit else { return nil }
            state.connectionsByPrincipal[principal.userId, default: 0] += 1
            // Routing ids as libzmq makes them: a zero byte and a counter, never reused (64 bits never wrap).
            var id = Data([0])
            withUnsafeBytes(of: state.nextID.bigEndian) { id.append(contentsOf: $0) }
            state.nextID += 1
            let connection = PeerConnection(id: id, channel: channel, handler: handler, principal: principal.userId)
            state.peers[id] = connection
            return connection
        }
    }

    func connectionClosed(_ connection: PeerConnection) {
        state.withLock { state in
            _ = state.peers.removeValue(forKey: connection.id)
            let left = state.connectionsByPrincipal[connection.principal, default: 1] - 1
            state.connectionsByPrincipal[connection.principal] = left > 0 ? left : nil
        }
    }

    /// Stops listening and closes every connection, each once what waits in its queue is written
    /// or after `linger`, whichever comes first. The future completes when all are closed.
    func close(linger: Duration) -> EventLoopFuture<Void> {
        let listening = listener.withLock { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let closedListener = listening?.close() ?? loop.makeSucceededVoidFuture()
        let connections = state.withLock { Array($0.peers.values) }
        let closed = connections.map { connection in
            connection.onLoop { $0.closeWhenWritten(linger: linger) }
            return connection.channel.closeFuture
        }
        return EventLoopFuture.andAllComplete([closedListener.recover { _ in }] + closed, on: loop)
    }
}

/// A connection past its handshake, known by its routing id: what a request's `Responder` holds to
/// reach the connection it came on, from any thread.
final class PeerConnection: Sendable {
    let id: Data
    let channel: any Channel
    /// Whose connection it is (`Principal.userId`), for the per-principal caps.
    let principal: String
    /// Where the connection's request handlers run: its event loop.
    let executor: EventLoopTaskExecutor
    private let handler: NIOLoopBound<CurveRouterConnection>
    private let closed = Atomic<Bool>(false)

    init(id: Data, channel: any Channel, handler: NIOLoopBound<CurveRouterConnection>, principal: String) {
        self.id = id
        self.channel = channel
        self.handler = handler
        self.principal = principal
        executor = EventLoopTaskExecutor(channel.eventLoop)
    }

    /// False once the connection closed (the client went away, its heartbeats stopped, or it was dropped).
    var isClosed: Bool { closed.load(ordering: .relaxed) }

    func markClosed() {
        closed.store(true, ordering: .relaxed)
    }

    /// Runs `body` with the connection's handler on its event loop: at once when called there.
    func onLoop(_ body: @escaping @Sendable (CurveRouterConnection) -> Void) {
        if channel.eventLoop.inEventLoop {
            body(handler.value)
        } else {
            let handler = self.handler
            channel.eventLoop.execute { body(handler.value) }
        }
    }

    /// Queues a message on the connection's one way out.
    func send(_ frames: [OutboundPayload]) {
        onLoop { $0.enqueue(.message(frames)) }
    }
}

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
/// Each whole message goes to `intake` on its connection's event loop (which starts its handler);
/// what the intake hands back (stream control) waits in an inbox for the router's I/O thread (woken
/// through `wakeup`). Replies go out through `deliverDirectly` from any thread, or `deliver` from
/// the I/O thread. Each connection has its own bounds both ways: a connection with
/// `queuedMessages` waiting in the inbox is not read until they are taken, and one with as many
/// replies not yet written reports `.full`, which only ever holds up that connection.
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
        /// Messages waiting per connection, each way.
        var queuedMessages: Int
        /// Bytes of replies handed to a connection and not yet written to the kernel.
        var outboundBytes: Int
        var heartbeatInterval: Duration
        var heartbeatTimeout: Duration
        /// Largest HELLO or INITIATE (INITIATE carries the client's metadata).
        var handshakeFrameBytes: Int
        /// Time from connecting to HELLO, and to READY.
        var helloTimeout: Duration
        var handshakeTimeout: Duration
        /// Connections that have not reached READY, in all and from one address; more are closed at accept.
        var handshakes: Int
        var handshakesPerAddress: Int
        /// Connections of one app, of the owner, of one service.
        var connectionsPerApp: Int
        var connectionsPerOwner: Int
        var connectionsPerService: Int
        /// Bytes of large frames all connections may be reading at once.
        var readBudgetBytes: Int
        /// `identify` calls running at once; later handshakes wait their turn.
        var identifiesInFlight: Int
    }

    private struct Peer {
        let connection: PeerConnection
        var queued = 0
        var isPaused = false
        /// Replies of this peer handed to the I/O thread and not yet taken up by it.
        var routed = 0
        /// The I/O thread holds replies this peer's connection had no room for.
        var isBackedUp = false
    }

    private struct State {
        var inbox = CircularBuffer<IncomingRequest>()
        var peers: [Data: Peer] = [:]
        var nextID: UInt64 = 1
        var isWakeupPending = false
        var handshakes = 0
        var handshakesByAddress: [String: Int] = [:]
        /// Connections that have not sent HELLO yet, oldest first: the cheapest to let go.
        var silent: [(id: ObjectIdentifier, channel: any Channel)] = []
        var connectionsByPrincipal: [String: Int] = [:]
        var identifying = 0
        var waitingToIdentify = CircularBuffer<WaitingIdentify>()
    }

    let limits: Limits
    let logger: Logger
    private let identifyKey: Identify
    private let readBudget: ReadBudget
    private let serverKey: CurveServerKey
    private let intake: RequestIntake
    private let wakeup: WakeupPipe
    private let onGone: @Sendable (Data) -> Void
    private let state = Mutex(State())
    private let listener = Mutex<(any Channel)?>(nil)

    /// Binds `endpoint` (`tcp://host:port`, `tcp://*:port` or `ipc:///path`).
    init(endpoint: String, keyPair: CurveKeyPair, limits: Limits, identify: @escaping Identify, intake: RequestIntake,
         wakeup: WakeupPipe, logger: Logger, onGone: @escaping @Sendable (Data) -> Void) throws {
        self.limits = limits
        self.logger = logger
        self.identifyKey = identify
        self.intake = intake
        self.wakeup = wakeup
        self.onGone = onGone
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
                channel.eventLoop.makeCompletedFuture {
                    if isTCP { try channel.syncOptions?.setOption(.socketOption(.tcp_nodelay), value: 1) }
                    try accept(channel, address: channel.remoteAddress?.ipAddress ?? "local")
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

    /// A new connection's pipeline: its frame decoder, then its CURVE connection. Past the caps on
    /// unfinished handshakes it is closed at once instead, before anything is read.
    func accept(_ channel: any Channel, address: String) throws {
        guard handshakeStarted(channel, address: address) else {
            channel.close(promise: nil)
            return
        }
        let frameBytes = limits.frameBytes + CurveServerHandshake.messageOverhead
        let decoder = ZMTPFrameDecoder(limits: .init(handshakeFrameBytes: limits.handshakeFrameBytes, frameBytes: frameBytes), budget: readBudget)
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(decoder, maximumBufferSize: frameBytes + (256 << 10)),
            CurveRouterConnection(socket: self, handshake: CurveServerHandshake(key: serverKey), address: address),
        ])
    }

    /// Counts a new connection among the unfinished handshakes, or refuses it (false): from one
    /// TCP address past `handshakesPerAddress`; past `handshakes` in all, unless a connection that
    /// has not even sent HELLO can be closed for it (the oldest such), so that idle strangers cannot
    /// keep a client that handshakes at once from getting in.
    func handshakeStarted(_ channel: any Channel, address: String) -> Bool {
        let (accepted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            if address != "local", state.handshakesByAddress[address, default: 0] >= limits.handshakesPerAddress { return (false, nil) }
            var evicted: (any Channel)?
            if state.handshakes >= limits.handshakes {
                guard !state.silent.isEmpty else { return (false, nil) }
                evicted = state.silent.removeFirst().channel
            }
            state.handshakes += 1
            state.handshakesByAddress[address, default: 0] += 1
            state.silent.append((ObjectIdentifier(channel), channel))
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        if !accepted { logger.debug("refused a connection at accept: too many unfinished handshakes", metadata: ["address": "\(address)"]) }
        return accepted
    }

    /// The connection sent its HELLO: it is no longer among the silent ones that may be closed for a newcomer.
    func helloReceived(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in state.silent.removeAll { $0.id == id } }
    }

    /// The connection from `address` reached READY or closed before it.
    func handshakeEnded(_ channel: any Channel, address: String) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.handshakes -= 1
            let left = state.handshakesByAddress[address, default: 1] - 1
            state.handshakesByAddress[address] = left > 0 ? left : nil
            state.silent.removeAll { $0.id == id }
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
        case .service: limits.connectionsPerService
        default: limits.connectionsPerApp
        }
    }

    /// Registers a connection that finished its handshake, or returns nil when its principal has
    /// as many connections as it may.
    func register(_ channel: any Channel, principal: Principal) -> PeerConnection? {
        let limit = connectionLimit(for: principal)
        return state.withLock { state in
            guard state.connectionsByPrincipal[principal.userId, default: 0] < limit else { return nil }
            state.connectionsByPrincipal[principal.userId, default: 0] += 1
            // Routing ids as libzmq makes them: a zero byte and a counter, never reused (64 bits never wrap).
            var id = Data([0])
            withUnsafeBytes(of: state.nextID.bigEndian) { id.append(contentsOf: $0) }
            state.nextID += 1
            let connection = PeerConnection(id: id, channel: channel, principal: principal.userId)
            state.peers[id] = Peer(connection: connection)
            return connection
        }
    }

    func connectionClosed(_ connection: PeerConnection) {
        state.withLock { state in
            _ = state.peers.removeValue(forKey: connection.id)
            let left = state.connectionsByPrincipal[connection.principal, default: 1] - 1
            state.connectionsByPrincipal[connection.principal] = left > 0 ? left : nil
        }
        onGone(connection.id)
        signal()
    }

    func receive(_ message: ReceivedMessage, from connection: PeerConnection) {
        guard let request = intake.take(message, executor: connection.executor) else { return }
        let shouldPause = state.withLock { state -> Bool in
            state.inbox.append(request)
            guard var peer = state.peers[connection.id] else { return false }
            peer.queued += 1
            let pause = !peer.isPaused && peer.queued >= limits.queuedMessages
            if pause { peer.isPaused = true }
            state.peers[connection.id] = peer
            return pause
        }
        if shouldPause { connection.channel.setOption(.autoRead, value: false).whenFailure { _ in } }
        signal()
    }

    private func signal() {
        let isFirst = state.withLock { state -> Bool in
            defer { state.isWakeupPending = true }
            return !state.isWakeupPending
        }
        if isFirst { wakeup.signal() }
    }

    // MARK: Called from the router's I/O thread

    /// Called after the wakeup pipe is drained, before taking messages.
    func wakeupHandled() {
        state.withLock { $0.isWakeupPending = false }
    }

    var hasMessages: Bool { state.withLock { !$0.inbox.isEmpty } }

    func takeRequest() -> IncomingRequest? {
        let (message, resume) = state.withLock { state -> (IncomingRequest?, (any Channel)?) in
            guard let message = state.inbox.popFirst() else { return (nil, nil) }
            guard var peer = state.peers[message.peer] else { return (message, nil) }
            peer.queued -= 1
            var resume: (any Channel)?
            if peer.isPaused, peer.queued <= limits.queuedMessages / 2 {
                peer.isPaused = false
                resume = peer.connection.channel
            }
            state.peers[message.peer] = peer
            return (message, resume)
        }
        resume?.setOption(.autoRead, value: true).whenFailure { _ in }
        return message
    }

    /// Hands a reply (routing id first) to its connection without waiting, from a handler's thread,
    /// when nothing of that peer waits on the I/O thread and its connection has room. Otherwise
    /// returns false, and the caller hands the reply to the I/O thread, which sends it in order.
    func deliverDirectly(_ frames: [Data]) -> Bool {
        guard let id = frames.first else { return true }
        let connection = state.withLock { state -> PeerConnection? in
            guard var peer = state.peers[id] else { return nil }
            if peer.routed == 0, !peer.isBackedUp, peer.connection.hasRoom(limits) {
                return peer.connection
            }
            peer.routed += 1
            state.peers[id] = peer
            return nil
        }
        guard let connection else { return false }
        write(frames, to: connection)
        return true
    }

    /// The I/O thread took up a reply `deliverDirectly` handed over (it sent or queued it).
    func routedReplyTaken(_ id: Data) {
        state.withLock { state in
            guard var peer = state.peers[id], peer.routed > 0 else { return }
            peer.routed -= 1
            state.peers[id] = peer
        }
    }

    /// Whether the I/O thread holds replies for this peer; while it does, every reply goes through it.
    func setBackedUp(_ id: Data, _ isBackedUp: Bool) {
        state.withLock { state in
            guard var peer = state.peers[id] else { return }
            peer.isBackedUp = isBackedUp
            state.peers[id] = peer
        }
    }

    /// Hands a reply (routing id first) to its connection without waiting, from the I/O thread.
    func deliver(_ frames: [Data]) -> Socket.SendOutcome {
        guard let id = frames.first, let connection = state.withLock({ $0.peers[id]?.connection }) else { return .unreachable }
        guard connection.hasRoom(limits) else { return .full }
        write(frames, to: connection)
        return .sent
    }

    private func write(_ frames: [Data], to connection: PeerConnection) {
        let bytes = frames.dropFirst().reduce(0) { $0 + $1.count }
        connection.outstanding.add(1, ordering: .relaxed)
        connection.outstandingBytes.add(bytes, ordering: .relaxed)
        let message = OutgoingMessage(frames: frames.dropFirst())
        let written: EventLoopFuture<Void>
        if connection.channel.eventLoop.inEventLoop {
            written = connection.channel.write(message)
            connection.flushSoon()
        } else {
            written = connection.channel.writeAndFlush(message)
        }
        written.whenComplete { _ in
            connection.outstanding.subtract(1, ordering: .relaxed)
            connection.outstandingBytes.subtract(bytes, ordering: .relaxed)
        }
    }

    /// Closes one connection (a peer that stopped reading); its client may connect again.
    func disconnect(_ id: Data) {
        state.withLock { $0.peers[id]?.connection.channel }?.close(promise: nil)
    }

    /// Stops listening and closes every connection, after up to `linger` for replies still being written.
    func close(linger: Duration) {
        let listening = listener.withLock { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        try? listening?.close().wait()
        let clock = ContinuousClock()
        let deadline = clock.now + linger
        func connections() -> [PeerConnection] { state.withLock { $0.peers.values.map(\.connection) } }
        while clock.now < deadline, connections().contains(where: { $0.outstanding.load(ordering: .relaxed) > 0 }) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        for connection in connections() { try? connection.channel.close().wait() }
    }
}

/// A connection past its handshake, known by its routing id.
final class PeerConnection: Sendable {
    let id: Data
    let channel: any Channel
    /// Whose connection it is (`Principal.userId`), for the per-principal caps.
    let principal: String
    /// Where the connection's request handlers run: its event loop.
    let executor: EventLoopTaskExecutor
    /// Replies handed to the channel and not yet written to the kernel.
    let outstanding = Atomic<Int>(0)
    /// Their bytes: a connection is full at `queuedMessages` replies or `outboundBytes` bytes,
    /// whichever comes first (one reply larger than that still goes, alone).
    let outstandingBytes = Atomic<Int>(0)

    func hasRoom(_ limits: CurveRouterSocket.Limits) -> Bool {
        outstanding.load(ordering: .relaxed) < limits.queuedMessages && outstandingBytes.load(ordering: .relaxed) < limits.outboundBytes
    }
    /// A flush is queued on the event loop (read and written there only).
    private let isFlushQueued: NIOLoopBoundBox<Bool>

    init(id: Data, channel: any Channel, principal: String) {
        self.id = id
        self.channel = channel
        self.principal = principal
        executor = EventLoopTaskExecutor(channel.eventLoop)
        isFlushQueued = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
    }

    /// Flushes after the tasks queued on the event loop so far: the replies of requests that
    /// arrived together (a client keeping several in flight) leave in one write, not one each.
    /// Called on the event loop.
    func flushSoon() {
        guard !isFlushQueued.value else { return }
        isFlushQueued.value = true
        channel.eventLoop.execute { [self] in
            isFlushQueued.value = false
            channel.flush()
        }
    }
}

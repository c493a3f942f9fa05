import Foundation
import LightboxProtocol
import Logging
import Synchronization

/// A service's one ROUTER endpoint: CURVE on, peers identified by their key (`identify`), requests
/// handed to an async handler as tasks on the event loop of the connection they came on, replies
/// and credit-based streams sent back through that connection's one way out. The endpoint is a
/// CurveRouterSocket (ZMTP on swift-nio), so every limit holds before bytes are kept; clients are
/// plain libzmq DEALER sockets.
public final class RouterServer: Sendable {
    public typealias Handler = @Sendable (IncomingRequest, Responder) async -> Void

    public struct Configuration: Sendable {
        public var endpoint: String
        public var keyPair: CurveKeyPair
        /// Who a client's CURVE public key belongs to: `.unknown` refuses the connection in its
        /// handshake (ERROR); `.unavailable` closes it without ERROR, so the client connects again.
        public var identify: @Sendable (_ publicKey: String) async -> Identification
        /// Replies waiting in a connection's queue (its channel not writable: the client is not
        /// reading) at which the connection's requests stop being read, until half have gone out.
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
        /// Connections that have not finished their handshake. Past it a newcomer takes the place of
        /// the oldest (one that has not sent HELLO first); no connection is refused at accept.
        public var maximumHandshakes = 256
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
        /// Replies kept in a connection's queue. Past it, or when nothing could be sent to it for
        /// `stalledPeerTimeout`, the peer is dropped: its queued replies are discarded, its streams
        /// ended and its connection closed.
        public var maximumQueuedReplies = 1024
        /// Bytes of those replies: past either bound the peer is dropped the same way.
        public var maximumQueuedReplyBytes = 64 << 20
        /// Bytes handed to a connection's channel and not yet written to the kernel; past it the
        /// channel is not writable and further replies wait in the connection's queue.
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

    private let socket: CurveRouterSocket
    private let stopping = Flag()
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let isFinished = Flag()
    private let handlers = RunningHandlers()
    /// Set when a graceful shutdown begins: new requests are refused, running ones finish.
    private let draining = Flag()
    private let streamCount = ActiveStreamCount()
    private let logger: Logger

    /// Binds the endpoint and starts serving with `handler`.
    public init(_ configuration: Configuration, logger: Logger, handler: @escaping Handler) throws {
        self.logger = logger
        let inFlight = RequestAllowance(.init(perApp: configuration.maximumRequestsPerApp, allApps: configuration.maximumConcurrentRequests,
                                              perPrivileged: configuration.maximumPrivilegedRequests))
        let intake = RequestIntake(maximumMessageBytes: configuration.maximumMessageBytes, logger: logger, streams: streamCount,
                                   inFlight: inFlight, handlers: handlers, draining: draining, handler: handler)
        let limits = CurveRouterSocket.Limits(
            frameBytes: configuration.maximumFrameBytes, messageBytes: configuration.maximumMessageBytes,
            messageFrames: configuration.maximumMessageFrames, queuedMessages: configuration.highWaterMark,
            queuedReplies: configuration.maximumQueuedReplies, queuedReplyBytes: configuration.maximumQueuedReplyBytes,
            outboundBytes: configuration.maximumOutboundBytes, stalledPeerTimeout: configuration.stalledPeerTimeout,
            streamIdleTimeout: configuration.streamIdleTimeout, heartbeatInterval: configuration.heartbeatInterval,
            heartbeatTimeout: configuration.heartbeatTimeout, handshakeFrameBytes: configuration.maximumHandshakeFrameBytes,
            helloTimeout: configuration.helloTimeout, handshakeTimeout: configuration.handshakeTimeout,
            handshakes: configuration.maximumHandshakes,
            connectionsPerApp: configuration.maximumConnectionsPerApp, connectionsPerOwner: configuration.maximumConnectionsPerOwner,
            connectionsPerService: configuration.maximumConnectionsPerService, readBudgetBytes: configuration.readBudgetBytes,
            identifiesInFlight: configuration.maximumIdentifiesInFlight)
        socket = try CurveRouterSocket(endpoint: configuration.endpoint, keyPair: configuration.keyPair, limits: limits,
                                       identify: configuration.identify, intake: intake, logger: logger)
    }

    /// Stops serving: the listener closes, and each connection closes once the replies already
    /// handed to it are written (at most a short linger); then `waitUntilStopped` returns.
    public func stop() {
        guard !stopping.isSet else { return }
        stopping.set()
        socket.close(linger: .milliseconds(250)).whenComplete { [self] _ in markFinished() }
    }

    /// Stops gracefully: new requests get `busy` ("shutting down"), requests being handled and
    /// streams being sent get up to `gracePeriod` to finish, what is still running then is
    /// cancelled (and given a moment to answer), and the socket closes.
    public func shutDown(gracePeriod: Duration) async {
        draining.set()
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

import Foundation
import LightboxProtocol
import Logging
import NIOCore

/// Replies for one connection, without the routing id: each `Data` becomes one frame.
struct OutgoingMessage: Sendable {
    var frames: ArraySlice<Data>
}

/// One client connection of a CurveRouterSocket, on its event loop, after its `ZMTPFrameDecoder`:
/// CURVE handshake (the client's key is identified before READY), then messages. A message's frames
/// are counted as they come, in bytes (with a per-frame overhead) and in frames, so a message over
/// either limit is never held whole: its frames are opened one at a time and dropped.
final class CurveRouterConnection: ChannelDuplexHandler {
    typealias InboundIn = ZMTPFrameReader.Frame
    typealias OutboundIn = OutgoingMessage
    typealias OutboundOut = ByteBuffer

    private enum Phase { case hello, initiate, identifying, ready, closed }

    /// Bytes a kept frame is counted for beyond its payload (its `Data` and array slot).
    static let frameOverhead = 64
    /// The most a PING's context may be (RFC 37 and libzmq: 16 bytes); a PONG echoes no more.
    static let maximumPingContext = 16
    /// Frames (and their bytes) a client may send after INITIATE before READY; more closes it.
    static let maximumEarlyFrames = 16
    static let maximumEarlyBytes = 64 << 10

    private let socket: CurveRouterSocket
    private let limits: CurveRouterSocket.Limits
    private let logger: Logger
    private let address: String
    private var handshake: CurveServerHandshake
    private var phase = Phase.hello
    private var peer: PeerConnection?
    private var userID = ""
    /// The peer process, for unix-socket connections (read at accept).
    private var credentials: PeerCredentials?
    private var lastInput = NIODeadline.now()
    private var timers: [Scheduled<Void>] = []
    private var heartbeats: RepeatedTask?
    private var isCountedAsHandshaking = true
    /// Frames that came while the client's key was being identified, handled once it is.
    private var early: [ZMTPFrameReader.Frame] = []
    private var earlyBytes = 0
    // The message being read.
    private var frames: [Data] = []
    private var messageBytes = 0
    private var messageFrames = 0

    init(socket: CurveRouterSocket, handshake: CurveServerHandshake, address: String) {
        self.socket = socket
        self.limits = socket.limits
        self.logger = socket.logger
        self.handshake = handshake
        self.address = address
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: ZMTPFrameReader.serverGreeting)), promise: nil)
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        PeerCredentials.of(context.channel).whenSuccess { connection.value.credentials = $0 }
        // A stranger gets a short time to say HELLO, and the whole handshake a longer one (identifying
        // a key may wait for lightbox-auth). Both are cancelled at READY and at close.
        for (limit, before) in [(limits.helloTimeout, Phase.initiate), (limits.handshakeTimeout, Phase.ready)] {
            timers.append(context.eventLoop.scheduleTask(in: TimeAmount(limit)) {
                let phase = connection.value.phase
                guard phase != .ready, phase != .closed, before != .initiate || phase == .hello else { return }
                connection.value.close(boundContext.value, because: "its handshake took longer than \(limit)")
            })
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .closed
        stopTimers()
        heartbeats?.cancel()
        heartbeats = nil
        handshake.forgetSecrets()
        endHandshakeCount(context)
        if let peer { socket.connectionClosed(peer) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        close(context, because: "\(error)")
    }

    private func stopTimers() {
        for timer in timers { timer.cancel() }
        timers.removeAll()
    }

    /// This connection no longer counts among the unfinished handshakes (READY, or closed).
    private func endHandshakeCount(_ context: ChannelHandlerContext) {
        guard isCountedAsHandshaking else { return }
        isCountedAsHandshaking = false
        socket.handshakeEnded(context.channel, address: address)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        lastInput = .now()
        do {
            switch phase {
            case .hello, .initiate:
                try handshakeStep(frame, context)
            case .identifying:
                early.append(frame)
                earlyBytes += frame.body.readableBytes
                guard early.count <= Self.maximumEarlyFrames, earlyBytes <= Self.maximumEarlyBytes else {
                    throw CurveServerHandshake.Failure("it sent \(earlyBytes) bytes in \(early.count) frames before its handshake ended")
                }
            case .ready:
                try receive(frame, context)
            case .closed:
                break
            }
        } catch {
            close(context, because: "\(error)")
        }
    }

    private func handshakeStep(_ frame: ZMTPFrameReader.Frame, _ context: ChannelHandlerContext) throws {
        guard frame.isCommand else { throw CurveServerHandshake.Failure("a message came before the CURVE handshake ended") }
        let bytes = Array(frame.body.readableBytesView)
        if phase == .hello {
            let welcome = try handshake.welcome(answering: bytes)
            context.writeAndFlush(wrapOutboundOut(ZMTPFrameReader.frame(command: welcome)), promise: nil)
            socket.helloReceived(context.channel)
            phase = .initiate
            return
        }
        let client = try handshake.client(from: bytes)
        let socketType = client.properties["socket-type"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard ["DEALER", "REQ", "ROUTER"].contains(socketType) else {
            throw CurveServerHandshake.Failure("a \(socketType) socket cannot talk to a ROUTER")
        }
        phase = .identifying
        let key = CurveKeyPair.z85(client.publicKey) ?? ""
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        socket.identify(key, on: EventLoopTaskExecutor(eventLoop)) { identification in
            eventLoop.execute { connection.value.identified(identification, key: key, context: boundContext.value) }
        }
    }

    private func identified(_ identification: Identification, key: String, context: ChannelHandlerContext) {
        guard phase == .identifying else { return }
        let principal: Principal
        switch identification {
        case .known(let known):
            principal = known
        case .unknown:
            refuse(context, key: key, because: "an unknown key")
            return
        case .unavailable:
            // Not a refusal: closed without ERROR, so the client's libzmq connects again later.
            close(context, because: "who its key belongs to cannot be told now (lightbox-auth did not answer)")
            return
        }
        guard let registered = socket.register(context.channel, principal: principal) else {
            refuse(context, key: key, because: "a connection over the limit of \(socket.connectionLimit(for: principal)) for \(principal.userId)")
            return
        }
        logger.debug("accepted a connection", metadata: ["principal": "\(principal)"])
        context.writeAndFlush(wrapOutboundOut(ZMTPFrameReader.frame(command: handshake.ready())), promise: nil)
        handshake.forgetSecrets()
        stopTimers()
        endHandshakeCount(context)
        userID = principal.userId
        peer = registered
        phase = .ready
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let interval = TimeAmount(limits.heartbeatInterval)
        heartbeats = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            connection.value.heartbeat(boundContext.value)
        }
        let waiting = early
        early = []
        do {
            for frame in waiting where phase == .ready { try receive(frame, context) }
        } catch {
            close(context, because: "\(error)")
        }
    }

    /// Answers ERROR (libzmq's client gives up on this socket) and closes.
    private func refuse(_ context: ChannelHandlerContext, key: String, because reason: String) {
        logger.info("refused a connection", metadata: ["reason": "\(reason)", "key": "\(key)", "address": "\(address)"])
        phase = .closed
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ZMTPFrameReader.frame(command: CurveServerHandshake.error("400"))))
            .whenComplete { _ in boundContext.value.close(promise: nil) }
    }

    private func receive(_ frame: ZMTPFrameReader.Frame, _ context: ChannelHandlerContext) throws {
        guard !frame.isCommand else { throw CurveServerHandshake.Failure("a plain ZMTP command came after the CURVE handshake") }
        let opened = try frame.body.withUnsafeReadableBytes { try handshake.open($0) }
        if opened.isCommand {
            answerCommand(opened.payload, context)
            return
        }
        messageFrames += 1
        messageBytes += opened.payload.count + Self.frameOverhead
        // Past either limit nothing more is kept; the header (when small) stays so the refusal can name the request.
        if (messageBytes <= limits.messageBytes && messageFrames <= limits.messageFrames) || (frames.isEmpty && opened.payload.count <= 1 << 20) {
            frames.append(opened.payload)
        }
        guard !opened.isMore, let peer else { return }
        var message = ReceivedMessage(frames: [peer.id] + frames, userID: userID)
        message.credentials = credentials
        message.totalBytes = messageBytes
        message.frameCount = messageFrames + 1
        message.isOversized = messageBytes > limits.messageBytes || messageFrames > limits.messageFrames
        frames = []
        messageBytes = 0
        messageFrames = 0
        socket.receive(message, from: peer)
    }

    /// ZMTP 3.1 commands inside the CURVE session: a PING gets its PONG, echoing at most 16 bytes of
    /// its context, and only while this connection's replies are moving (a peer that does not read
    /// gets no PONGs piling up for it); other commands are ignored.
    private func answerCommand(_ payload: Data, _ context: ChannelHandlerContext) {
        let ping = Array(CurveServerHandshake.command("PING"))
        guard payload.count >= ping.count + 2, payload.starts(with: ping) else { return }
        guard context.channel.isWritable, peer?.hasRoom(limits) ?? true else { return }
        let pingContext = payload.dropFirst(ping.count + 2).prefix(Self.maximumPingContext)
        send(command: CurveServerHandshake.command("PONG") + pingContext, context)
    }

    /// Sends a PING, or closes the connection when nothing came from it for the heartbeat timeout.
    private func heartbeat(_ context: ChannelHandlerContext) {
        guard phase == .ready else { return }
        let silence = NIODeadline.now() - lastInput
        if silence > TimeAmount(limits.heartbeatTimeout) + TimeAmount(limits.heartbeatInterval) {
            close(context, because: "nothing came from it for \(silence.nanoseconds / 1_000_000) ms (heartbeats stopped)")
            return
        }
        let deciseconds = UInt16(clamping: limits.heartbeatTimeout.components.seconds * 10)
        send(command: CurveServerHandshake.command("PING") + CurveServerHandshake.bytes(UInt64(deciseconds)).suffix(2), context)
    }

    private func send(command: [UInt8], _ context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: command.count + CurveServerHandshake.messageOverhead + 9)
        command.withUnsafeBytes { seal($0, isMore: false, isCommand: true, into: &buffer) }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    private func close(_ context: ChannelHandlerContext, because reason: String) {
        guard phase != .closed else { return }
        // Before READY a failure is a stranger's (or a wrong key's, retried by libzmq): not worth a line each.
        logger.log(level: phase == .ready ? .info : .debug, "closed a connection",
                   metadata: ["reason": "\(reason)", "principal": "\(userID)"])
        phase = .closed
        context.close(promise: nil)
    }

    // MARK: Writing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let message = unwrapOutboundIn(data)
        guard phase == .ready else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let size = message.frames.reduce(0) { $0 + $1.count + CurveServerHandshake.messageOverhead + 9 }
        var buffer = context.channel.allocator.buffer(capacity: size)
        for (index, frame) in zip(message.frames.indices, message.frames) {
            frame.withUnsafeBytes { seal($0, isMore: index < message.frames.endIndex - 1, isCommand: false, into: &buffer) }
        }
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    private func seal(_ payload: UnsafeRawBufferPointer, isMore: Bool, isCommand: Bool, into buffer: inout ByteBuffer) {
        let size = payload.count + CurveServerHandshake.messageOverhead
        ZMTPFrameReader.writeHeader(size: size, isCommand: false, into: &buffer)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { destination in
            handshake.seal(payload, isMore: isMore, isCommand: isCommand, into: destination)
            return size
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

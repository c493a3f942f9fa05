import Foundation
import LightboxProtocol
import Logging
import NIOCore

/// Replies for one connection, without the routing id: each `Data` becomes one frame.
struct OutgoingMessage: Sendable {
    var frames: ArraySlice<Data>
}

/// One client connection of a CurveRouterSocket, on its event loop: greeting, CURVE handshake (the
/// client's key is identified before READY), then messages. Every frame's size is checked from its
/// header before its body is kept, and a message's frames are counted as they come, so a message
/// over the limit is never held whole: its frames are opened one at a time and dropped.
final class CurveRouterConnection: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = OutgoingMessage
    typealias OutboundOut = ByteBuffer

    private enum Phase { case greeting, hello, initiate, identifying, ready, closed }

    private let socket: CurveRouterSocket
    private let limits: CurveRouterSocket.Limits
    private let logger: Logger
    private var handshake: CurveServerHandshake
    private var phase = Phase.greeting
    private var buffer = ByteBuffer()
    private var peer: PeerConnection?
    private var userID = ""
    private var lastInput = NIODeadline.now()
    private var timers: [RepeatedTask] = []
    // The message being read.
    private var frames: [Data] = []
    private var messageBytes = 0
    private var messageFrames = 0

    init(socket: CurveRouterSocket, handshake: CurveServerHandshake) {
        self.socket = socket
        self.limits = socket.limits
        self.logger = socket.logger
        self.handshake = handshake
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: ZMTPFrameReader.serverGreeting)), promise: nil)
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let timeout = TimeAmount(limits.handshakeTimeout)
        context.eventLoop.scheduleTask(in: timeout) {
            guard connection.value.phase != .ready, connection.value.phase != .closed else { return }
            connection.value.close(boundContext.value, because: "its handshake took longer than \(timeout.nanoseconds / 1_000_000_000) s")
        }
        let interval = TimeAmount(limits.heartbeatInterval)
        timers.append(context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            connection.value.heartbeat(boundContext.value)
        })
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .closed
        for timer in timers { timer.cancel() }
        timers.removeAll()
        if let peer { socket.connectionClosed(peer) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("a connection failed", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        lastInput = .now()
        if buffer.readableBytes == 0 {
            buffer = incoming
        } else {
            buffer.writeBuffer(&incoming)
        }
        // Nothing but a handshake is read before READY; bytes that pile up meanwhile are not kept.
        if phase != .ready, buffer.readableBytes > 64 << 10 {
            close(context, because: "it sent \(buffer.readableBytes) bytes before its handshake ended")
            return
        }
        process(context)
    }

    private func process(_ context: ChannelHandlerContext) {
        do {
            reading: while phase != .closed {
                switch phase {
                case .greeting:
                    // Anything but ZMTP is turned away at its first byte.
                    if let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self), first != 0xFF {
                        throw ZMTPFrameReader.Violation(description: "not a ZMTP peer")
                    }
                    guard buffer.readableBytes >= ZMTPFrameReader.greetingSize else { break reading }
                    try ZMTPFrameReader.checkGreeting(buffer.readSlice(length: ZMTPFrameReader.greetingSize)!.readableBytesView)
                    phase = .hello
                case .hello, .initiate:
                    guard let frame = try ZMTPFrameReader.nextFrame(from: &buffer, maximumSize: 4096) else { break reading }
                    try handshakeStep(frame, context)
                case .identifying, .closed:
                    break reading
                case .ready:
                    guard let frame = try ZMTPFrameReader.nextFrame(from: &buffer, maximumSize: limits.frameBytes + CurveServerHandshake.messageOverhead) else {
                        break reading
                    }
                    try receive(frame, context)
                }
            }
        } catch {
            close(context, because: "\(error)")
            return
        }
        // Hand back what a big frame grew the buffer to, once it is read.
        if buffer.readableBytes == 0, buffer.capacity > 256 << 10 { buffer = ByteBuffer() }
    }

    private func handshakeStep(_ frame: ZMTPFrameReader.Frame, _ context: ChannelHandlerContext) throws {
        guard frame.isCommand else { throw CurveServerHandshake.Failure("a message came before the CURVE handshake ended") }
        let bytes = Array(frame.body.readableBytesView)
        if phase == .hello {
            let welcome = try handshake.welcome(answering: bytes)
            context.writeAndFlush(wrapOutboundOut(ZMTPFrameReader.frame(command: welcome)), promise: nil)
            phase = .initiate
            return
        }
        let client = try handshake.client(from: bytes)
        let socketType = client.properties["Socket-Type"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard ["DEALER", "REQ", "ROUTER"].contains(socketType) else {
            throw CurveServerHandshake.Failure("a \(socketType) socket cannot talk to a ROUTER")
        }
        phase = .identifying
        let key = CurveKeyPair.z85(client.publicKey) ?? ""
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let identify = socket.identify
        let eventLoop = context.eventLoop
        Task {
            let principal = await identify(key)
            eventLoop.execute { connection.value.identified(principal, key: key, context: boundContext.value) }
        }
    }

    private func identified(_ principal: Principal?, key: String, context: ChannelHandlerContext) {
        guard phase == .identifying else { return }
        guard let principal else {
            logger.info("refused an unknown key", metadata: ["key": "\(key)", "address": "\(context.remoteAddress.map { "\($0)" } ?? "local")"])
            phase = .closed
            let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(ZMTPFrameReader.frame(command: CurveServerHandshake.error("400"))))
                .whenComplete { _ in boundContext.value.close(promise: nil) }
            return
        }
        logger.debug("accepted a connection", metadata: ["principal": "\(principal)"])
        context.writeAndFlush(wrapOutboundOut(ZMTPFrameReader.frame(command: handshake.ready())), promise: nil)
        userID = principal.userId
        peer = socket.register(context.channel)
        phase = .ready
        process(context)
    }

    private func receive(_ frame: ZMTPFrameReader.Frame, _ context: ChannelHandlerContext) throws {
        guard !frame.isCommand else { throw CurveServerHandshake.Failure("a plain ZMTP command came after the CURVE handshake") }
        let opened = try frame.body.withUnsafeReadableBytes { try handshake.open($0) }
        if opened.isCommand {
            answerCommand(opened.payload, context)
            return
        }
        messageFrames += 1
        messageBytes += opened.payload.count
        // Past the limit nothing more is kept; the header (when small) stays so the refusal can name the request.
        if messageBytes <= limits.messageBytes || (frames.isEmpty && opened.payload.count <= 1 << 20) {
            frames.append(opened.payload)
        }
        guard !opened.isMore, let peer else { return }
        var message = ReceivedMessage(frames: [peer.id] + frames, userID: userID)
        message.totalBytes = messageBytes
        message.frameCount = messageFrames + 1
        message.isOversized = messageBytes > limits.messageBytes
        frames = []
        messageBytes = 0
        messageFrames = 0
        socket.receive(message, from: peer)
    }

    /// ZMTP 3.1 commands inside the CURVE session: a PING gets its PONG; others are ignored.
    private func answerCommand(_ payload: Data, _ context: ChannelHandlerContext) {
        let ping = Array(CurveServerHandshake.command("PING"))
        guard payload.count >= ping.count + 2, payload.starts(with: ping) else { return }
        send(command: CurveServerHandshake.command("PONG") + payload.dropFirst(ping.count + 2), context)
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

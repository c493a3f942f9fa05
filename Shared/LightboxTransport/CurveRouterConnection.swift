import Foundation
import LightboxProtocol
import Logging
import NIOCore

/// One client connection of a CurveRouterSocket, on its event loop, after its `ZMTPFrameDecoder`:
/// the CURVE handshake (the client's key is identified before READY), then messages both ways.
///
/// Inbound, a message's frames are counted as they come, in bytes (with a per-frame overhead) and in
/// frames, so a message over either limit is never held whole: its frames are opened one at a time
/// and dropped. Outbound, everything after READY — replies, stream chunks, PINGs and PONGs — goes
/// through one queue here (`enqueue`), written only while the channel is writable (its write buffer
/// is bounded in bytes) and bounded itself in items and bytes: a peer that lets it pass either bound,
/// or lets nothing out of it for `stalledPeerTimeout`, is dropped. While replies wait in it, no
/// more requests are read. Streams send a chunk only when the client granted credit for it and the
/// queue is empty.
final class CurveRouterConnection: ChannelDuplexHandler {
    typealias InboundIn = ZMTPFrameReader.Frame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase { case hello, initiate, identifying, ready, closed }

    /// Bytes a kept frame is counted for beyond its payload (its `Data` and array slot).
    static let frameOverhead = 64
    /// The most a PING's context may be (RFC 37 and libzmq: 16 bytes); a PONG echoes no more.
    static let maximumPingContext = 16
    /// Frames (and their bytes) a client may send after INITIATE before READY; more closes it.
    static let maximumEarlyFrames = 16
    static let maximumEarlyBytes = 64 << 10
    /// Credit one `stream.credit` may grant.
    static let maximumCreditGrant = 1024

    private let socket: CurveRouterSocket
    private let limits: CurveRouterSocket.Limits
    private let logger: Logger
    private let address: String
    private var handshake: CurveServerHandshake
    private var phase = Phase.hello
    private var context: ChannelHandlerContext?
    private var peer: PeerConnection?
    private var userID = ""
    /// The peer process, for unix-socket connections (read at accept).
    private let credentials: PeerCredentials?
    /// The launch the client said this connection belongs to (`service.hello`), once it has.
    private var launch: String?
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
    // The way out.
    private var outbound = CircularBuffer<OutboundItem>()
    private var outboundBytes = 0
    /// When a write last completed (or nothing was waiting): a peer whose bytes stand still too long is dropped.
    private var lastOutboundProgress = NIODeadline.now()
    /// Writes handed to the channel and not yet completed.
    private var unfinishedWrites = 0
    private var stallCheck: Scheduled<Void>?
    private var lastWrite: EventLoopFuture<Void>?
    private var isFlushQueued = false
    private var streams: [String: StreamState] = [:]
    // Reading pauses while replies wait.
    private var isReadingPaused = false
    private var isReadWaiting = false
    /// Set when the server stops: the connection closes once its queue is written.
    private var isClosingWhenWritten = false

    /// One credit-based stream's state here; its sender (`Responder.stream`) waits on `waiter`.
    private struct StreamState {
        var credit: Int
        var lastCredit = NIODeadline.now()
        var waiter: CheckedContinuation<Void, any Error>?
        var interruption: StreamInterruption?
        /// Ends the stream when no credit comes in time; armed while it waits without credit.
        var idleCheck: Scheduled<Void>?
    }

    init(socket: CurveRouterSocket, handshake: CurveServerHandshake, address: String, credentials: PeerCredentials?) {
        self.socket = socket
        self.credentials = credentials
        self.limits = socket.limits
        self.logger = socket.logger
        self.handshake = handshake
        self.address = address
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: ZMTPFrameReader.serverGreeting)), promise: nil)
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        // A stranger gets a short time to say HELLO, and the whole handshake a longer one (identifying
        // a key may wait for lightbox-auth). Both are cancelled at READY and at close.
        for (limit, before) in [(limits.helloTimeout, Phase.initiate), (limits.handshakeTimeout, Phase.ready)] {
            timers.append(context.eventLoop.scheduleTask(in: TimeAmount(limit)) {
                let phase = connection.value.phase
                guard phase != .ready, phase != .closed, before != .initiate || phase == .hello else { return }
                connection.value.close(because: "its handshake took longer than \(limit)")
            })
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .closed
        stopTimers()
        stallCheck?.cancel()
        stallCheck = nil
        heartbeats?.cancel()
        heartbeats = nil
        handshake.forgetSecrets()
        endHandshakeCount(context)
        outbound.removeAll()
        outboundBytes = 0
        for id in Array(streams.keys) { interrupt(id, .connectionGone) }
        if let peer {
            peer.markClosed()
            socket.connectionClosed(peer)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        close(because: "\(error)")
    }

    private func stopTimers() {
        for timer in timers { timer.cancel() }
        timers.removeAll()
    }

    /// This connection no longer counts among the unfinished handshakes (READY, or closed).
    private func endHandshakeCount(_ context: ChannelHandlerContext) {
        guard isCountedAsHandshaking else { return }
        isCountedAsHandshaking = false
        socket.handshakeEnded(context.channel)
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
                try receive(frame)
            case .closed:
                break
            }
        } catch {
            close(because: "\(error)")
        }
    }

    /// Reading is held back while replies wait to be written (the client is not reading them).
    func read(context: ChannelHandlerContext) {
        if isReadingPaused {
            isReadWaiting = true
        } else {
            context.read()
        }
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
        let socketType = client.properties["socket-type"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard ["DEALER", "REQ", "ROUTER"].contains(socketType) else {
            throw CurveServerHandshake.Failure("a \(socketType) socket cannot talk to a ROUTER")
        }
        phase = .identifying
        let key = CurveKeyPair.z85(client.publicKey) ?? ""
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        socket.identify(key, on: EventLoopTaskExecutor(eventLoop)) { identification in
            eventLoop.execute { connection.value.identified(identification, key: key) }
        }
    }

    private func identified(_ identification: Identification, key: String) {
        guard phase == .identifying, let context else { return }
        let principal: Principal
        switch identification {
        case .known(let known):
            principal = known
        case .unknown:
            refuse(context, key: key, because: "an unknown key")
            return
        case .unavailable:
            // Not a refusal: closed without ERROR, so the client's libzmq connects again later.
            close(because: "who its key belongs to cannot be told now (lightbox-auth did not answer)")
            return
        }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        guard let registered = socket.register(context.channel, handler: handler, principal: principal) else {
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
        lastOutboundProgress = .now()
        let interval = TimeAmount(limits.heartbeatInterval)
        heartbeats = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            handler.value.heartbeat()
        }
        let waiting = early
        early = []
        do {
            for frame in waiting where phase == .ready { try receive(frame) }
        } catch {
            close(because: "\(error)")
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

    private func receive(_ frame: ZMTPFrameReader.Frame) throws {
        guard !frame.isCommand else { throw CurveServerHandshake.Failure("a plain ZMTP command came after the CURVE handshake") }
        let opened = try frame.body.withUnsafeReadableBytes { try handshake.open($0) }
        if opened.isCommand {
            answerCommand(opened.payload)
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
        message.totalBytes = messageBytes
        message.frameCount = messageFrames + 1
        message.isOversized = messageBytes > limits.messageBytes || messageFrames > limits.messageFrames
        message.credentials = credentials
        message.launch = launch
        frames = []
        messageBytes = 0
        messageFrames = 0
        guard let control = socket.intake.take(message, from: peer) else { return }
        switch control.op {
        case .streamCredit:
            guard let credit = try? control.body(StreamCredit.self) else { return }
            grant(credit.credit, to: credit.stream)
        case .hello:
            launch = try? control.body(Hello.self).launch
        default:
            guard let cancel = try? control.body(StreamCancel.self) else { return }
            interrupt(cancel.stream, .cancelled)
        }
    }

    /// ZMTP 3.1 commands inside the CURVE session: a PING gets its PONG, echoing at most 16 bytes of
    /// its context, and only while nothing waits to go out (a peer that does not read gets no PONGs
    /// piling up for it); other commands are ignored.
    private func answerCommand(_ payload: Data) {
        let ping = Array(CurveServerHandshake.command("PING"))
        guard payload.count >= ping.count + 2, payload.starts(with: ping) else { return }
        guard outbound.isEmpty, context?.channel.isWritable ?? false else { return }
        let pingContext = payload.dropFirst(ping.count + 2).prefix(Self.maximumPingContext)
        enqueue(.command(CurveServerHandshake.command("PONG") + pingContext))
    }

    /// Every heartbeat interval: closes a connection nothing came from for the heartbeat timeout,
    /// and sends a PING.
    private func heartbeat() {
        guard phase == .ready else { return }
        let silence = NIODeadline.now() - lastInput
        if silence > TimeAmount(limits.heartbeatTimeout) + TimeAmount(limits.heartbeatInterval) {
            close(because: "nothing came from it for \(silence.nanoseconds / 1_000_000) ms (heartbeats stopped)")
            return
        }
        let deciseconds = UInt16(clamping: limits.heartbeatTimeout.components.seconds * 10)
        enqueue(.command(CurveServerHandshake.command("PING") + CurveServerHandshake.bytes(UInt64(deciseconds)).suffix(2)))
    }

    func close(because reason: String) {
        guard phase != .closed, let context else { return }
        // Before READY a failure is a stranger's (or a wrong key's, retried by libzmq): not worth a line each.
        logger.log(level: phase == .ready ? .info : .debug, "closed a connection",
                   metadata: ["reason": "\(reason)", "principal": "\(userID)"])
        phase = .closed
        context.close(promise: nil)
    }

    /// Gives up on a peer that does not read: what waits for it is discarded, its streams end, and
    /// its connection closes (a client that reconnects gets a new connection).
    private func drop(because reason: String) {
        logger.warning("dropped a peer that stopped reading", metadata: [
            "principal": "\(userID)", "reason": "\(reason)", "discardedReplies": "\(outbound.count)", "endedStreams": "\(streams.count)"])
        close(because: reason)
    }
}

// MARK: - The way out

extension CurveRouterConnection {
    /// Queues `item` and writes what the channel has room for. Past the queue's bounds the peer is dropped.
    func enqueue(_ item: OutboundItem) {
        guard phase == .ready, let context else { return }
        outbound.append(item)
        outboundBytes += item.size
        if outbound.count > limits.queuedReplies || outboundBytes > limits.queuedReplyBytes {
            drop(because: "more than \(limits.queuedReplies) replies or \(limits.queuedReplyBytes) bytes waited for it")
            return
        }
        pump(context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump(context) }
        context.fireChannelWritabilityChanged()
    }

    /// Writes queued items while the channel is writable; then lets a stream with credit send, pauses
    /// or resumes reading, and closes a connection that was waiting for its queue to be written.
    private func pump(_ context: ChannelHandlerContext) {
        var wrote = false
        while context.channel.isWritable, let item = outbound.popFirst() {
            outboundBytes -= item.size
            write(item, context)
            wrote = true
        }
        if wrote {
            flushSoon(context)
            watchForStall(context)
        }
        if outbound.isEmpty, context.channel.isWritable { wakeStreams() }
        updateReading(context)
        if isClosingWhenWritten, outbound.isEmpty { closeAfterLastWrite(context) }
    }

    private func write(_ item: OutboundItem, _ context: ChannelHandlerContext) {
        let buffer: ByteBuffer
        switch item {
        case .message(let frames):
            let size = frames.reduce(0) { $0 + $1.count + CurveServerHandshake.messageOverhead + 9 }
            var sealed = context.channel.allocator.buffer(capacity: size)
            for (index, frame) in frames.enumerated() {
                frame.withUnsafeBytes { seal($0, isMore: index < frames.count - 1, isCommand: false, into: &sealed) }
            }
            buffer = sealed
        case .command(let bytes):
            var sealed = context.channel.allocator.buffer(capacity: bytes.count + CurveServerHandshake.messageOverhead + 9)
            bytes.withUnsafeBytes { seal($0, isMore: false, isCommand: true, into: &sealed) }
            buffer = sealed
        }
        if unfinishedWrites == 0 { lastOutboundProgress = .now() }
        unfinishedWrites += 1
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let written = context.write(wrapOutboundOut(buffer))
        written.whenComplete { _ in
            connection.value.unfinishedWrites -= 1
            connection.value.lastOutboundProgress = .now()
        }
        lastWrite = written
    }

    /// Checks, `stalledPeerTimeout` after the last write completed, that bytes still move to the
    /// peer; one that let nothing through for that long is dropped.
    private func watchForStall(_ context: ChannelHandlerContext) {
        guard stallCheck == nil else { return }
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        stallCheck = context.eventLoop.scheduleTask(deadline: lastOutboundProgress + TimeAmount(limits.stalledPeerTimeout)) {
            let connection = connection.value
            connection.stallCheck = nil
            guard connection.phase == .ready, connection.unfinishedWrites > 0 || !connection.outbound.isEmpty,
                  let context = connection.context else { return }
            if NIODeadline.now() - connection.lastOutboundProgress >= TimeAmount(connection.limits.stalledPeerTimeout) {
                connection.drop(because: "nothing could be sent to it for \(connection.limits.stalledPeerTimeout)")
            } else {
                connection.watchForStall(context)
            }
        }
    }

    private func seal(_ payload: UnsafeRawBufferPointer, isMore: Bool, isCommand: Bool, into buffer: inout ByteBuffer) {
        let size = payload.count + CurveServerHandshake.messageOverhead
        ZMTPFrameReader.writeHeader(size: size, isCommand: false, into: &buffer)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { destination in
            handshake.seal(payload, isMore: isMore, isCommand: isCommand, into: destination)
            return size
        }
    }

    /// Flushes after the tasks queued on the event loop so far: the replies of requests that
    /// arrived together (a client keeping several in flight) leave in one write, not one each.
    private func flushSoon(_ context: ChannelHandlerContext) {
        guard !isFlushQueued else { return }
        isFlushQueued = true
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            connection.value.isFlushQueued = false
            connection.value.context?.flush()
        }
    }

    private func updateReading(_ context: ChannelHandlerContext) {
        if !isReadingPaused, outbound.count >= limits.queuedMessages {
            isReadingPaused = true
        } else if isReadingPaused, outbound.count <= limits.queuedMessages / 2 {
            isReadingPaused = false
            if isReadWaiting {
                isReadWaiting = false
                context.read()
            }
        }
    }

    /// Writes what is queued and then closes, or closes anyway after `linger` (the server is stopping).
    func closeWhenWritten(linger: Duration) {
        guard let context else { return }
        guard phase == .ready else {
            context.close(promise: nil)
            return
        }
        isClosingWhenWritten = true
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(linger)) { connection.value.context?.close(promise: nil) }
        pump(context)
    }

    private func closeAfterLastWrite(_ context: ChannelHandlerContext) {
        context.flush()
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        guard let lastWrite else {
            context.close(promise: nil)
            return
        }
        lastWrite.whenComplete { _ in boundContext.value.close(promise: nil) }
    }

    // MARK: Streams

    /// Registers a stream under its request id, with the credit its request granted.
    func startStream(_ id: String, credit: Int) throws(StreamInterruption) {
        guard phase == .ready else { throw .connectionGone }
        guard streams[id] == nil else { throw .duplicateID }
        streams[id] = StreamState(credit: credit)
    }

    /// Resumes `waiter` once the stream may send a chunk: it has credit, the channel is writable and
    /// nothing else waits to go out. Resumes it with the interruption when the stream was stopped.
    func waitUntilSendable(_ id: String, _ waiter: CheckedContinuation<Void, any Error>) {
        guard var stream = streams[id] else {
            waiter.resume(throwing: StreamInterruption.connectionGone)
            return
        }
        if let interruption = stream.interruption {
            waiter.resume(throwing: interruption)
            return
        }
        if stream.credit > 0, outbound.isEmpty, context?.channel.isWritable ?? false {
            waiter.resume()
            return
        }
        if stream.credit == 0 {
            RequestMetrics.creditStall()
            if let context, stream.idleCheck == nil {
                let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
                stream.idleCheck = context.eventLoop.scheduleTask(deadline: stream.lastCredit + TimeAmount(limits.streamIdleTimeout)) {
                    connection.value.interrupt(id, .idle)
                }
            }
        }
        stream.waiter = waiter
        streams[id] = stream
    }

    /// Sends one chunk message of the stream, spending one credit.
    func sendChunk(_ id: String, _ frames: [OutboundPayload]) {
        streams[id]?.credit -= 1
        enqueue(.message(frames))
    }

    func endStream(_ id: String) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.idleCheck?.cancel()
        stream.waiter?.resume(throwing: StreamInterruption.connectionGone)
    }

    /// A task waiting in `waitUntilSendable` was cancelled (the server is stopping).
    func cancelWait(_ id: String) {
        guard let waiter = streams[id]?.waiter else { return }
        streams[id]?.waiter = nil
        waiter.resume(throwing: CancellationError())
    }

    private func grant(_ credit: Int, to id: String) {
        guard var stream = streams[id] else { return }
        stream.credit += max(0, min(credit, Self.maximumCreditGrant))
        stream.lastCredit = .now()
        stream.idleCheck?.cancel()
        stream.idleCheck = nil
        streams[id] = stream
        if outbound.isEmpty, context?.channel.isWritable ?? false { wakeStreams() }
    }

    private func interrupt(_ id: String, _ interruption: StreamInterruption) {
        guard var stream = streams[id], stream.interruption == nil else { return }
        stream.interruption = interruption
        let waiter = stream.waiter
        stream.waiter = nil
        stream.idleCheck?.cancel()
        stream.idleCheck = nil
        streams[id] = stream
        waiter?.resume(throwing: interruption)
    }

    private func wakeStreams() {
        for (id, stream) in streams where stream.credit > 0 && stream.waiter != nil {
            streams[id]?.waiter = nil
            stream.waiter?.resume()
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

import NIOCore
import Synchronization

/// ZMTP 3 off one connection's bytes: the 64-byte greeting, then frames, each handed on whole.
/// Run by NIO's `ByteToMessageHandler`, which keeps the unread bytes in one buffer that it compacts
/// as frames are consumed and that may never grow past its maximum, so a peer that always stops one
/// byte into its next frame holds at most one frame's bytes, not all it ever sent.
///
/// A frame's size is checked from its header before any of its body is kept: the two handshake
/// commands (HELLO, INITIATE) may be at most `handshakeFrameBytes`, later frames `frameBytes`. A frame
/// body over `reservedFrameBytes` is read only once the process-wide `ReadBudget` has room for it;
/// while it has none, this connection stops reading (its peer's sends wait in the kernel) and asks
/// again on a short timer.
struct ZMTPFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ZMTPFrameReader.Frame

    struct Limits {
        var handshakeFrameBytes: Int
        var frameBytes: Int
        /// Frames larger than this reserve their size from `budget` before their body is read.
        var reservedFrameBytes = 64 << 10
    }

    private let limits: Limits
    private let budget: ReadBudget
    private var isGreeted = false
    private var framesRead = 0
    /// Bytes of `budget` this connection holds for the frame being read.
    private var reservation: ReadBudget.Reservation

    init(limits: Limits, budget: ReadBudget) {
        self.limits = limits
        self.budget = budget
        reservation = ReadBudget.Reservation(budget: budget)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if !isGreeted {
            // Anything but ZMTP is turned away at its first byte.
            if let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self), first != 0xFF {
                throw ZMTPFrameReader.Violation(description: "not a ZMTP peer")
            }
            guard buffer.readableBytes >= ZMTPFrameReader.greetingSize else { return .needMoreData }
            try ZMTPFrameReader.checkGreeting(buffer.readSlice(length: ZMTPFrameReader.greetingSize)!.readableBytesView)
            isGreeted = true
            return .continue
        }
        let maximum = framesRead < 2 ? limits.handshakeFrameBytes : limits.frameBytes
        guard let size = try ZMTPFrameReader.announcedSize(in: buffer, maximumSize: maximum) else { return .needMoreData }
        if size.body > limits.reservedFrameBytes, buffer.readableBytes < size.total, !reservation.hold(size.body) {
            reservation.waitForRoom(size.body, context: context)
            return .needMoreData
        }
        guard let frame = try ZMTPFrameReader.nextFrame(from: &buffer, maximumSize: maximum) else { return .needMoreData }
        reservation.release()
        framesRead += 1
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        let state = try decode(context: context, buffer: &buffer)
        if state == .needMoreData { reservation.release() }
        return state
    }

    mutating func decoderRemoved(context: ChannelHandlerContext) {
        reservation.release()
    }
}

/// Bytes of frame bodies all connections of a process may be reading at once. A connection takes
/// its share before it reads a large frame and gives it back once the frame is read (or it closes).
final class ReadBudget: Sendable {
    let limit: Int
    private let used = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    var inUse: Int { used.withLock { $0 } }

    func take(_ bytes: Int) -> Bool {
        used.withLock { used in
            guard used + bytes <= limit else { return false }
            used += bytes
            return true
        }
    }

    func give(_ bytes: Int) {
        used.withLock { $0 -= bytes }
    }

    /// One connection's share, and its wait for one while reading is paused.
    struct Reservation {
        let budget: ReadBudget
        private(set) var held = 0
        private var retry: RepeatedTask?

        init(budget: ReadBudget) {
            self.budget = budget
        }

        /// Holds `bytes` (or already does); false when the budget has no room now.
        mutating func hold(_ bytes: Int) -> Bool {
            if held < bytes {
                guard budget.take(bytes - held) else { return false }
                held = bytes
            }
            retry?.cancel()
            retry = nil
            return true
        }

        mutating func release() {
            retry?.cancel()
            retry = nil
            if held > 0 { budget.give(held) }
            held = 0
        }

        /// Stops reading until the budget has room for `bytes`, checking on a short timer; reading then
        /// starts again and the next `decode` takes the room (which may have gone again meanwhile).
        mutating func waitForRoom(_ bytes: Int, context: ChannelHandlerContext) {
            retry?.cancel()
            let channel = context.channel
            channel.setOption(.autoRead, value: false).whenFailure { _ in }
            let budget = self.budget
            retry = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(10), delay: .milliseconds(10)) { task in
                guard budget.limit - budget.inUse >= bytes || !channel.isActive else { return }
                task.cancel()
                channel.setOption(.autoRead, value: true).whenFailure { _ in }
                channel.read()
            }
        }
    }
}

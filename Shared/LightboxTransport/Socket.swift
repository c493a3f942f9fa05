import CZeroMQ
import Foundation
import LightboxProtocol

/// A libzmq socket. Not Sendable: it is created, used and closed on one I/O thread.
final class Socket {
    let handle: UnsafeMutableRawPointer
    private var isClosed = false

    init(_ context: ZMQContext = .shared, type: Int32) throws {
        guard let handle = zmq_socket(context.handle, type) else { throw TransportError.zmq("zmq_socket") }
        self.handle = handle
        try set(ZMQ_LINGER, 0)
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        zmq_close(handle)
    }

    func set(_ option: Int32, _ value: Int32) throws {
        var value = value
        try check(zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size), "zmq_setsockopt(\(option))")
    }

    func set(_ option: Int32, int64 value: Int64) throws {
        var value = value
        try check(zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size), "zmq_setsockopt(\(option))")
    }

    func set(_ option: Int32, _ value: String) throws {
        let bytes = Array(value.utf8)
        try check(zmq_setsockopt(handle, option, bytes, bytes.count), "zmq_setsockopt(\(option))")
    }

    /// Makes this socket a CURVE server: it proves itself with `keyPair` and asks ZAP about every client.
    func makeCurveServer(_ keyPair: CurveKeyPair, domain: String) throws {
        try set(ZMQ_CURVE_SERVER, 1)
        try set(ZMQ_CURVE_SECRETKEY, keyPair.secretKey)
        try set(ZMQ_ZAP_DOMAIN, domain)
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverKey`.
    func makeCurveClient(_ keyPair: CurveKeyPair, serverKey: String) throws {
        try set(ZMQ_CURVE_SERVERKEY, serverKey)
        try set(ZMQ_CURVE_PUBLICKEY, keyPair.publicKey)
        try set(ZMQ_CURVE_SECRETKEY, keyPair.secretKey)
    }

    func bind(_ endpoint: String) throws {
        try check(zmq_bind(handle, endpoint), "zmq_bind", context: endpoint)
    }

    func connect(_ endpoint: String) throws {
        try check(zmq_connect(handle, endpoint), "zmq_connect", context: endpoint)
    }

    /// What became of a message handed to `deliver`.
    enum SendOutcome {
        case sent
        /// The peer's pipe is at its high-water mark (EAGAIN): nothing was sent; try again later.
        case full
        /// The ROUTER knows no such peer any more (EHOSTUNREACH under ROUTER_MANDATORY).
        case unreachable
    }

    /// Sends every frame as one message without blocking. Returns false when the peer's pipe is at
    /// its high-water mark (EAGAIN): nothing was sent and the caller may try again later.
    func send(_ frames: [Data]) throws -> Bool {
        switch try deliver(frames) {
        case .sent: return true
        case .full: return false
        case .unreachable: throw TransportError.zmq("zmq_send")
        }
    }

    func deliver(_ frames: [Data]) throws -> SendOutcome {
        for (index, frame) in frames.enumerated() {
            let flags = ZMQ_DONTWAIT | (index < frames.count - 1 ? ZMQ_SNDMORE : 0)
            while true {
                let rc = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
                if rc >= 0 { break }
                let error = zmq_errno()
                if error == EINTR { continue }
                // Later frames of a message are always accepted once the first one is.
                if error == EAGAIN, index == 0 { return .full }
                if error == EHOSTUNREACH, index == 0 { return .unreachable }
                throw TransportError.zmq("zmq_send")
            }
        }
        return .sent
    }

    /// Turns on ZMTP heartbeats: a PING every `interval`, the connection closed when nothing
    /// answers within `timeout`; the peer is told to drop us after `timeToLive` of silence.
    func setHeartbeats(interval: Duration, timeout: Duration, timeToLive: Duration) throws {
        func milliseconds(_ duration: Duration) -> Int32 { Int32(clamping: duration.milliseconds) }
        try set(ZMQ_HEARTBEAT_IVL, milliseconds(interval))
        try set(ZMQ_HEARTBEAT_TIMEOUT, milliseconds(timeout))
        // The TTL travels in the PING in tenths of a second and is capped at 6553.5 s by ZMTP.
        try set(ZMQ_HEARTBEAT_TTL, min(milliseconds(timeToLive), 6_553_000))
    }

    /// Receives one whole message, or nil when none is waiting.
    func receive() throws -> ReceivedMessage? {
        var message = ReceivedMessage(frames: [], userID: nil)
        var message_t = zmq_msg_t()
        zmq_msg_init(&message_t)
        defer { zmq_msg_close(&message_t) }
        while true {
            let flags = message.frames.isEmpty ? ZMQ_DONTWAIT : 0
            let rc = zmq_msg_recv(&message_t, handle, flags)
            if rc < 0 {
                let error = zmq_errno()
                if error == EINTR { continue }
                if error == EAGAIN, message.frames.isEmpty { return nil }
                throw TransportError.zmq("zmq_msg_recv")
            }
            let size = zmq_msg_size(&message_t)
            message.frames.append(size == 0 ? Data() : Data(bytes: zmq_msg_data(&message_t), count: size))
            message.frameCount += 1
            message.totalBytes += size
            if zmq_msg_more(&message_t) == 0 { return message }
        }
    }

    private func check(_ rc: Int32, _ call: String, context: String = "") throws {
        if rc != 0 { throw TransportError.zmq(call, context: context) }
    }
}

/// Waits for readiness on sockets and plain file descriptors, retrying when a signal interrupts.
func poll(_ items: inout [zmq_pollitem_t], timeoutMilliseconds: Int) throws {
    while true {
        let rc = zmq_poll(&items, Int32(items.count), timeoutMilliseconds)
        if rc >= 0 { return }
        if zmq_errno() == EINTR { continue }
        throw TransportError.zmq("zmq_poll")
    }
}

extension zmq_pollitem_t {
    static func socket(_ socket: Socket, events: Int32) -> zmq_pollitem_t {
        zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(events), revents: 0)
    }

    static func fd(_ fd: Int32) -> zmq_pollitem_t {
        zmq_pollitem_t(socket: nil, fd: fd, events: Int16(ZMQ_POLLIN), revents: 0)
    }

    var isReadable: Bool { Int32(revents) & ZMQ_POLLIN != 0 }
    var isWritable: Bool { Int32(revents) & ZMQ_POLLOUT != 0 }
}

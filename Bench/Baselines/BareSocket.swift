import CZeroMQ
import Foundation
import LightboxTransport

/// A plain libzmq socket for the baselines, apart from the transport's own: only what a bare CURVE
/// ROUTER or DEALER needs, with no ZAP handler, so the baselines measure ZeroMQ and CURVE alone.
/// Not Sendable: one thread creates, uses and closes it.
final class BareSocket {
    /// This process's context for the baselines. A libzmq context is thread-safe (its sockets are not).
    nonisolated(unsafe) private static let context: UnsafeMutableRawPointer = zmq_ctx_new()!
    private let handle: UnsafeMutableRawPointer

    private init(type: Int32) throws {
        guard let handle = zmq_socket(Self.context, type) else { throw Self.failure("zmq_socket") }
        self.handle = handle
        try set(ZMQ_LINGER, 0)
    }

    deinit { zmq_close(handle) }

    /// A CURVE ROUTER bound to `endpoint` that accepts any client key.
    static func curveRouter(endpoint: String, keyPair: CurveKeyPair) throws -> BareSocket {
        let socket = try BareSocket(type: ZMQ_ROUTER)
        try socket.set(ZMQ_ROUTER_MANDATORY, 1)
        try socket.set(ZMQ_CURVE_SERVER, 1)
        try socket.set(ZMQ_CURVE_SECRETKEY, keyPair.secretKey)
        guard zmq_bind(socket.handle, endpoint) == 0 else { throw failure("zmq_bind \(endpoint)") }
        return socket
    }

    /// A CURVE DEALER, as `keyPair`, connected to the server at `endpoint` whose key is `serverKey`.
    static func curveDealer(endpoint: String, serverKey: String, keyPair: CurveKeyPair) throws -> BareSocket {
        let socket = try BareSocket(type: ZMQ_DEALER)
        try socket.set(ZMQ_CURVE_SERVERKEY, serverKey)
        try socket.set(ZMQ_CURVE_PUBLICKEY, keyPair.publicKey)
        try socket.set(ZMQ_CURVE_SECRETKEY, keyPair.secretKey)
        guard zmq_connect(socket.handle, endpoint) == 0 else { throw failure("zmq_connect \(endpoint)") }
        return socket
    }

    /// Sends `frames` as one message without blocking; false when the peer's pipe is full.
    func send(_ frames: [Data]) throws -> Bool {
        for (index, frame) in frames.enumerated() {
            let more = index < frames.count - 1 ? ZMQ_SNDMORE : 0
            while frame.withUnsafeBytes({ zmq_send(handle, $0.baseAddress, $0.count, ZMQ_DONTWAIT | more) }) < 0 {
                switch zmq_errno() {
                case EINTR: continue
                case EAGAIN where index == 0: return false
                default: throw Self.failure("zmq_send")
                }
            }
        }
        return true
    }

    /// The frames of one waiting message, or nil when none is waiting.
    func receive() throws -> [Data]? {
        var frames: [Data] = []
        var part = zmq_msg_t()
        zmq_msg_init(&part)
        defer { zmq_msg_close(&part) }
        repeat {
            while zmq_msg_recv(&part, handle, frames.isEmpty ? ZMQ_DONTWAIT : 0) < 0 {
                switch zmq_errno() {
                case EINTR: continue
                case EAGAIN where frames.isEmpty: return nil
                default: throw Self.failure("zmq_msg_recv")
                }
            }
            let size = zmq_msg_size(&part)
            frames.append(size == 0 ? Data() : Data(bytes: zmq_msg_data(&part), count: size))
        } while zmq_msg_more(&part) != 0
        return frames
    }

    /// Whether a message arrived within `milliseconds`.
    func waitForMessage(milliseconds: Int) throws -> Bool {
        var items = [zmq_pollitem_t(socket: handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
        while zmq_poll(&items, 1, milliseconds) < 0 {
            guard zmq_errno() == EINTR else { throw Self.failure("zmq_poll") }
        }
        return Int32(items[0].revents) & ZMQ_POLLIN != 0
    }

    private func set(_ option: Int32, _ value: Int32) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else { throw Self.failure("zmq_setsockopt(\(option))") }
    }

    private func set(_ option: Int32, _ value: String) throws {
        let bytes = Array(value.utf8)
        guard zmq_setsockopt(handle, option, bytes, bytes.count) == 0 else { throw Self.failure("zmq_setsockopt(\(option))") }
    }

    private static func failure(_ call: String) -> TransportError {
        TransportError(.socket, "\(call): \(String(cString: zmq_strerror(zmq_errno())))")
    }
}

import CZeroMQ

/// The process-wide ZeroMQ context. Contexts are thread-safe by design; sockets are not.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    public static let shared = ZMQContext()

    private init() {
        handle = zmq_ctx_new()!
        // Never let zmq_ctx_term wait for unsent messages at exit.
        zmq_ctx_set(handle, ZMQ_BLOCKY, 0)
        // Each connection takes three sockets (its DEALER and the monitor pair); the default 1,023
        // would cap a process (a test run, the surface) at a few hundred connections.
        zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, 16_384)
    }
}

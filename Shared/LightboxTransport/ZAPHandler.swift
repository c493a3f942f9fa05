import CZeroMQ
import Foundation
import LightboxProtocol
import Logging

/// The ZeroMQ Authentication Protocol handler (RFC 27) of a process: it maps each connecting
/// client's CURVE key to a principal, or refuses the handshake. One per context, bound before any
/// CURVE server socket.
public final class ZAPHandler: Sendable {
    /// Decides who a Z85 public key belongs to; nil refuses the connection.
    public typealias Resolver = @Sendable (_ publicKey: String) async -> Principal?

    public static let domain = "lightbox"
    private static let endpoint = "inproc://zeromq.zap.01"
    private let wakeup = WakeupPipe()
    private let stopped = Flag()

    /// Binds the handler on the shared context and serves on its own thread until `stop()`.
    public init(resolver: @escaping Resolver, logger: Logger) throws {
        let wakeup = self.wakeup
        let stopped = self.stopped
        try IOThread.start(name: "lightbox-zap") { ready in
            let socket: Socket
            do {
                socket = try Socket(type: ZMQ_REP)
                try socket.bind(ZAPHandler.endpoint)
            } catch {
                ready(error)
                return
            }
            ready(nil)
            defer { socket.close() }
            while !stopped.isSet {
                var items = [zmq_pollitem_t.socket(socket, events: ZMQ_POLLIN), .fd(wakeup.readFD)]
                do {
                    try poll(&items, timeoutMilliseconds: 1000)
                    if items[1].isReadable { wakeup.drain() }
                    guard items[0].isReadable, let request = try socket.receive() else { continue }
                    _ = try socket.send(ZAPHandler.reply(to: request.frames, resolver: resolver, logger: logger))
                } catch {
                    logger.error("ZAP handler failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    public func stop() {
        stopped.set()
        wakeup.signal()
    }

    /// Frames of a ZAP request: version, request id, domain, address, identity, mechanism, credentials…
    private static func reply(to frames: [Data], resolver: @escaping Resolver, logger: Logger) -> [Data] {
        func answer(_ status: String, _ text: String, userID: String = "") -> [Data] {
            [Data("1.0".utf8), frames.count > 1 ? frames[1] : Data(), Data(status.utf8), Data(text.utf8), Data(userID.utf8), Data()]
        }
        guard frames.count >= 7, String(decoding: frames[0], as: UTF8.self) == "1.0" else {
            return answer("500", "malformed ZAP request")
        }
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        let address = String(decoding: frames[3], as: UTF8.self)
        guard mechanism == "CURVE", let publicKey = CurveKeyPair.z85(frames[6]) else {
            logger.info("refused a connection without CURVE", metadata: ["address": "\(address)", "mechanism": "\(mechanism)"])
            return answer("400", "CURVE is required")
        }
        guard let principal = runBlocking({ await resolver(publicKey) }) else {
            logger.info("refused an unknown key", metadata: ["address": "\(address)", "key": "\(publicKey)"])
            return answer("400", "unknown key")
        }
        logger.debug("accepted a connection", metadata: ["principal": "\(principal)", "address": "\(address)"])
        return answer("200", "OK", userID: principal.userId)
    }
}

/// A flag set once, read from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

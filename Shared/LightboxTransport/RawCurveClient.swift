import Foundation

/// A CurveZMQ client over a plain unix socket, with every byte in its caller's hands: what a hostile
/// app can send that libzmq never would (frames by the million, a write that stops one byte into a
/// frame, PINGs with large contexts, a handshake left half done). For the connection fuzz target
/// and the tests that attack a real service; Lightbox's own clients are libzmq sockets. Blocking.
/// One thread uses it at a time (`@unchecked Sendable` so a test can hand it to a thread of its own).
final class RawCurveClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let descriptor: Int32
    private var curve: CurveClientHandshake?
    private var input = [UInt8]()

    /// Connects to `ipc://PATH` or `tcp://IPV4:PORT`, without a greeting yet.
    init(endpoint: String, receiveTimeout: Int = 20) throws {
        let connected: Int32
        if endpoint.hasPrefix("ipc://") {
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = String(endpoint.dropFirst(6))
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        } else if endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":"),
                  let port = UInt16(endpoint[endpoint.index(after: colon)...]) {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, String(endpoint.dropFirst(6)[..<colon]), &address.sin_addr) == 1 else {
                close(descriptor)
                throw Failure(description: "not an IPv4 address: \(endpoint)")
            }
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            throw Failure(description: "only ipc:// and tcp://IPV4:PORT endpoints")
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect: \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Greeting, HELLO, INITIATE as `keyPair` (a DEALER); returns the name of the server's last
    /// command: "READY" when it accepted the key, "ERROR" when it refused it.
    @discardableResult
    func handshake(as keyPair: CurveKeyPair, serverKey: String) throws -> String {
        var curve = try CurveClientHandshake(keyPair: keyPair, serverKey: serverKey)
        try write(CurveClientHandshake.greeting)
        _ = try readExactly(64)
        try write(CurveClientHandshake.frame(try curve.hello(), isCommand: true))
        try curve.welcome(try readFrame().body)
        try write(CurveClientHandshake.frame(try curve.initiate(metadata: CurveClientHandshake.dealerMetadata), isCommand: true))
        self.curve = curve
        let answer = try readFrame().body
        let nameLength = Int(answer.first ?? 0)
        return String(decoding: answer.dropFirst().prefix(nameLength), as: UTF8.self)
    }

    /// Greeting and HELLO, then nothing: a handshake left half done, which the server must answer
    /// with WELCOME and then wait for. Reads nothing, so it never blocks on the server.
    func sayHelloOnly(serverKey: String) throws {
        try write(try Self.greetingAndHello(serverKey: serverKey))
    }

    /// The bytes a client sends before the server's first answer: its greeting and a HELLO from a
    /// fresh short-term key. The server cannot tell a HELLO sent again from a new one, so one copy
    /// serves a flood of half-done handshakes from another process.
    static func greetingAndHello(serverKey: String) throws -> [UInt8] {
        var curve = try CurveClientHandshake(keyPair: try CurveKeyPair.generate(), serverKey: serverKey)
        return CurveClientHandshake.greeting + CurveClientHandshake.frame(try curve.hello(), isCommand: true)
    }

    // MARK: Sending

    /// One MESSAGE frame (a boxed ZMTP frame, `isMore` for all but a message's last), as bytes to write.
    func sealed(_ payload: [UInt8], isMore: Bool = false, isCommand: Bool = false) -> [UInt8] {
        CurveClientHandshake.frame(curve!.seal(payload, isMore: isMore, isCommand: isCommand), isCommand: false)
    }

    /// A request as `sealed` frames: its JSON header, then `attachments`.
    func request(id: String, op: String, attachments: [[UInt8]] = []) -> [UInt8] {
        let header = Array(#"{"v":1,"id":"\#(id)","op":"\#(op)","body":{}}"#.utf8)
        var bytes = sealed(header, isMore: !attachments.isEmpty)
        for (index, attachment) in attachments.enumerated() { bytes += sealed(attachment, isMore: index < attachments.count - 1) }
        return bytes
    }

    /// A PING command with `context` (RFC 37: TTL, then up to 16 bytes the PONG echoes).
    func ping(context: [UInt8]) -> [UInt8] {
        sealed(Self.command("PING") + [0, 0] + context, isCommand: true)
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            // send(2) with MSG_NOSIGNAL: a server that closed gives EPIPE, not a SIGPIPE that ends this process.
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure(description: "write: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    // MARK: Receiving

    struct Frame {
        var isCommand: Bool
        var isMore: Bool
        var body: [UInt8]
    }

    func readFrame() throws -> Frame {
        let flags = try readExactly(1)[0]
        let size = flags & 0x02 != 0 ? Int(Self.uint64(try readExactly(8))) : Int(try readExactly(1)[0])
        return Frame(isCommand: flags & 0x04 != 0, isMore: flags & 0x01 != 0, body: try readExactly(size))
    }

    /// The next MESSAGE opened: a ZMTP command (PING, PONG) or a message frame.
    func readOpened() throws -> (isCommand: Bool, isMore: Bool, payload: [UInt8]) {
        try curve!.open(try readFrame().body)
    }

    /// The next message's opened frames (PINGs and PONGs skipped).
    func readMessage() throws -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while true {
            let opened = try readOpened()
            if opened.isCommand { continue }
            frames.append(opened.payload)
            if !opened.isMore { return frames }
        }
    }

    /// Stops writing (the server sees end of file) and reads until the server has closed; the
    /// server has then handled every byte sent.
    func finish() {
        shutdown(descriptor, Int32(SHUT_WR))
        _ = isClosedByServer()
    }

    /// Whether the server closed the connection (end of file) within the receive timeout.
    func isClosedByServer() -> Bool {
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(descriptor, &bytes, bytes.count)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while input.count < count {
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let got = read(descriptor, &chunk, chunk.count)
            guard got > 0 else { throw Failure(description: got == 0 ? "closed by the server" : "read: \(String(cString: strerror(errno)))") }
            input += chunk.prefix(got)
        }
        defer { input.removeFirst(count) }
        return Array(input.prefix(count))
    }

    // MARK: Bytes

    static func command(_ name: String) -> [UInt8] { [UInt8(name.utf8.count)] + Array(name.utf8) }

    static func uint64(_ bytes: [UInt8]) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
}

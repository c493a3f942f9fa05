import CSodium
import CZeroMQ
import Foundation
import LightboxTransport

/// A CurveZMQ client written from RFC 23/26/37 over a plain unix socket, with every byte in the
/// test's hands: what a hostile app can send that libzmq never would (frames by the million, a
/// write that stops one byte into a frame, PINGs with large contexts, a handshake left half done).
/// Blocking; one test task drives it.
final class RawCurveClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let descriptor: Int32
    private var clientTransientPublic = [UInt8](repeating: 0, count: 32)
    private var clientTransientSecret = [UInt8](repeating: 0, count: 32)
    private var sessionKey = [UInt8](repeating: 0, count: 32)
    private var nonce: UInt64 = 1
    private var input = [UInt8]()

    /// Connects to `ipc://PATH`, without a greeting yet.
    init(endpoint: String) throws {
        guard endpoint.hasPrefix("ipc://") else { throw Failure(description: "only ipc endpoints") }
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = String(endpoint.dropFirst(6))
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect: \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Greeting, HELLO, INITIATE as `keyPair` (a DEALER); returns the name of the server's last
    /// command: "READY" when it accepted the key, "ERROR" when it refused it.
    @discardableResult
    func handshake(as keyPair: CurveKeyPair, serverKey: String) throws -> String {
        let server = try Self.binary(serverKey)
        let clientPublic = try Self.binary(keyPair.publicKey)
        let clientSecret = try Self.binary(keyPair.secretKey)
        var greeting = [UInt8](repeating: 0, count: 64)
        greeting[0] = 0xFF
        greeting[9] = 0x7F
        greeting[10] = 3
        greeting[11] = 1
        for (index, byte) in "CURVE".utf8.enumerated() { greeting[12 + index] = byte }
        try write(greeting)
        _ = try readExactly(64)

        crypto_box_keypair(&clientTransientPublic, &clientTransientSecret)
        var box = [UInt8](repeating: 0, count: 80)
        let helloNonce = takeNonce()
        crypto_box_easy(&box, [UInt8](repeating: 0, count: 64), 64, Array("CurveZMQHELLO---".utf8) + helloNonce, server, clientTransientSecret)
        try write(Self.frame(Self.command("HELLO") + [1, 0] + [UInt8](repeating: 0, count: 72) + clientTransientPublic + helloNonce + box,
                             isCommand: true))

        let welcome = try readFrame().body
        guard welcome.starts(with: Self.command("WELCOME")), welcome.count == 168 else { throw Failure(description: "expected WELCOME") }
        var plain = [UInt8](repeating: 0, count: 128)
        guard crypto_box_open_easy(&plain, Array(welcome[24...]), 144, Array("WELCOME-".utf8) + welcome[8..<24], server, clientTransientSecret) == 0
        else { throw Failure(description: "WELCOME does not open") }
        let serverTransient = Array(plain[0..<32])
        let cookie = Array(plain[32..<128])

        var vouchNonce = [UInt8](repeating: 0, count: 16)
        randombytes_buf(&vouchNonce, 16)
        var vouch = [UInt8](repeating: 0, count: 80)
        crypto_box_easy(&vouch, clientTransientPublic + server, 64, Array("VOUCH---".utf8) + vouchNonce, serverTransient, clientSecret)
        let metadata = Self.property("Socket-Type", Array("DEALER".utf8)) + Self.property("Identity", [])
        let inner = clientPublic + vouchNonce + vouch + metadata
        var initiateBox = [UInt8](repeating: 0, count: inner.count + 16)
        let initiateNonce = takeNonce()
        crypto_box_easy(&initiateBox, inner, UInt64(inner.count), Array("CurveZMQINITIATE".utf8) + initiateNonce, serverTransient, clientTransientSecret)
        try write(Self.frame(Self.command("INITIATE") + cookie + initiateNonce + initiateBox, isCommand: true))
        crypto_box_beforenm(&sessionKey, serverTransient, clientTransientSecret)

        let answer = try readFrame().body
        let nameLength = Int(answer.first ?? 0)
        return String(decoding: answer.dropFirst().prefix(nameLength), as: UTF8.self)
    }

    // MARK: Sending

    /// One MESSAGE frame (a boxed ZMTP frame, `isMore` for all but a message's last), as bytes to write.
    func sealed(_ payload: [UInt8], isMore: Bool = false, isCommand: Bool = false) -> [UInt8] {
        let short = takeNonce()
        let plain = [(isMore ? 0x01 : 0) | (isCommand ? 0x02 : 0)] + payload
        var box = [UInt8](repeating: 0, count: plain.count + 16)
        crypto_box_easy_afternm(&box, plain, UInt64(plain.count), Array("CurveZMQMESSAGEC".utf8) + short, sessionKey)
        return Self.frame(Self.command("MESSAGE") + short + box, isCommand: false)
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
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
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
        let frame = try readFrame().body
        guard frame.starts(with: Self.command("MESSAGE")) else { throw Failure(description: "expected MESSAGE") }
        var plain = [UInt8](repeating: 0, count: frame.count - 32)
        guard crypto_box_open_easy_afternm(&plain, Array(frame[16...]), UInt64(frame.count - 16),
                                           Array("CurveZMQMESSAGES".utf8) + frame[8..<16], sessionKey) == 0
        else { throw Failure(description: "a MESSAGE does not open") }
        return (plain[0] & 0x02 != 0, plain[0] & 0x01 != 0, Array(plain.dropFirst()))
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

    /// Whether the server closed the connection (end of file) within the receive timeout.
    func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
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

    private func takeNonce() -> [UInt8] {
        defer { nonce += 1 }
        return withUnsafeBytes(of: nonce.bigEndian) { Array($0) }
    }

    static func frame(_ body: [UInt8], isCommand: Bool, isMore: Bool = false) -> [UInt8] {
        let flags: UInt8 = (isCommand ? 0x04 : 0) | (isMore ? 0x01 : 0)
        if body.count > 255 {
            return [flags | 0x02] + withUnsafeBytes(of: UInt64(body.count).bigEndian) { Array($0) } + body
        }
        return [flags, UInt8(body.count)] + body
    }

    static func command(_ name: String) -> [UInt8] { [UInt8(name.utf8.count)] + Array(name.utf8) }

    static func property(_ name: String, _ value: [UInt8]) -> [UInt8] {
        [UInt8(name.utf8.count)] + Array(name.utf8) + withUnsafeBytes(of: UInt32(value.count).bigEndian) { Array($0) } + value
    }

    static func uint64(_ bytes: [UInt8]) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    static func binary(_ z85: String) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        guard zmq_z85_decode(&key, z85) != nil else { throw Failure(description: "not a Z85 key") }
        return key
    }
}

import CSodium
import CZeroMQ
import Foundation

/// The server side of a CurveZMQ handshake (RFC 26) and the message boxes that follow it, as
/// libzmq speaks them: HELLO → WELCOME, INITIATE → READY (or ERROR), then MESSAGE boxes with
/// strictly increasing nonces. Pure computation on bytes; the connection that owns it does the I/O.
struct CurveServerHandshake {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The client's long-term key and its metadata, known once INITIATE checked out.
    struct Client {
        var publicKey: Data
        var properties: [String: Data]
    }

    private let serverKey: CurveServerKey
    private var transientPublic = [UInt8](repeating: 0, count: 32)
    private var transientSecret = [UInt8](repeating: 0, count: 32)
    private var cookieKey = [UInt8](repeating: 0, count: 32)
    private var clientTransient = [UInt8](repeating: 0, count: 32)
    /// crypto_box_beforenm(C', s'): the key of every MESSAGE box.
    private(set) var sessionKey = [UInt8](repeating: 0, count: 32)
    private var nextNonce: UInt64 = 1
    private var peerNonce: UInt64 = 0

    init(key: CurveServerKey) {
        serverKey = key
    }

    // MARK: Handshake

    /// Checks HELLO and answers WELCOME.
    mutating func welcome(answering hello: [UInt8]) throws -> [UInt8] {
        guard hello.count == 200, hello.starts(with: Self.command("HELLO")) else { throw Failure("expected a 200-byte HELLO") }
        guard hello[6] == 1, hello[7] == 0 else { throw Failure("HELLO has an unknown CurveZMQ version") }
        // The 72 bytes of padding that make HELLO as long as WELCOME must be zero (RFC 26).
        guard hello[8..<80].allSatisfy({ $0 == 0 }) else { throw Failure("HELLO's padding is not zero") }
        clientTransient = Array(hello[80..<112])
        let nonce = Array("CurveZMQHELLO---".utf8) + hello[112..<120]
        peerNonce = Self.uint64(hello[112..<120])
        var signature = [UInt8](repeating: 0, count: 64)
        let opened = serverKey.withSecret { crypto_box_open_easy(&signature, Array(hello[120..<200]), 80, nonce, clientTransient, $0) }
        guard opened == 0 else {
            throw Failure("cannot open HELLO (the client used another server key)")
        }
        guard signature.allSatisfy({ $0 == 0 }) else { throw Failure("HELLO's signature is not 64 zero bytes") }
        crypto_box_keypair(&transientPublic, &transientSecret)
        randombytes_buf(&cookieKey, 32)
        let cookieNonce = Self.random(16)
        var cookie = [UInt8](repeating: 0, count: 80)
        let cookiePlain = clientTransient + transientSecret
        crypto_secretbox_easy(&cookie, cookiePlain, 64, Array("COOKIE--".utf8) + cookieNonce, cookieKey)
        let welcomeNonce = Self.random(16)
        let plain = transientPublic + cookieNonce + cookie
        var box = [UInt8](repeating: 0, count: 144)
        let sealed = serverKey.withSecret { crypto_box_easy(&box, plain, 128, Array("WELCOME-".utf8) + welcomeNonce, clientTransient, $0) }
        guard sealed == 0 else {
            throw Failure("cannot make WELCOME")
        }
        return Self.command("WELCOME") + welcomeNonce + box
    }

    /// Checks INITIATE (cookie, vouch, the client's long-term key) and returns who the client is.
    mutating func client(from initiate: [UInt8]) throws -> Client {
        guard initiate.count >= 257, initiate.starts(with: Self.command("INITIATE")) else { throw Failure("expected INITIATE") }
        var cookiePlain = [UInt8](repeating: 0, count: 64)
        defer { sodium_memzero(&cookiePlain, cookiePlain.count) }
        guard crypto_secretbox_open_easy(&cookiePlain, Array(initiate[25..<105]), 80,
                                         Array("COOKIE--".utf8) + initiate[9..<25], cookieKey) == 0,
              Self.equal(cookiePlain, clientTransient + transientSecret) else {
            throw Failure("INITIATE carries a cookie this server did not make")
        }
        let nonce = Array("CurveZMQINITIATE".utf8) + initiate[105..<113]
        let shortNonce = Self.uint64(initiate[105..<113])
        guard shortNonce > peerNonce else { throw Failure("INITIATE reuses a nonce") }
        peerNonce = shortNonce
        let box = Array(initiate[113...])
        var plain = [UInt8](repeating: 0, count: box.count - 16)
        guard crypto_box_open_easy(&plain, box, UInt64(box.count), nonce, clientTransient, transientSecret) == 0 else {
            throw Failure("cannot open INITIATE")
        }
        let clientKey = Array(plain[0..<32])
        var vouch = [UInt8](repeating: 0, count: 64)
        guard crypto_box_open_easy(&vouch, Array(plain[48..<128]), 80, Array("VOUCH---".utf8) + plain[32..<48],
                                   clientKey, transientSecret) == 0,
              Self.equal(Array(vouch[0..<32]), clientTransient), Self.equal(Array(vouch[32..<64]), serverKey.publicKey) else {
            throw Failure("the client's vouch does not match its keys")
        }
        guard crypto_box_beforenm(&sessionKey, clientTransient, transientSecret) == 0 else {
            throw Failure("the client's transient key is not a usable Curve25519 key")
        }
        // RFC 26: the cookie key is discarded once INITIATE has been checked; the transient secret
        // is no longer needed either (the session key is derived).
        forgetSecrets()
        guard let properties = Self.properties(plain[128...]) else { throw Failure("INITIATE metadata is malformed") }
        return Client(publicKey: Data(clientKey), properties: properties)
    }

    /// READY, with this side's metadata (a ROUTER).
    mutating func ready() -> [UInt8] {
        let metadata = Self.property("Socket-Type", Array("ROUTER".utf8)) + Self.property("Identity", [])
        let nonce = takeNonce()
        var box = [UInt8](repeating: 0, count: metadata.count + 16)
        crypto_box_easy_afternm(&box, metadata, UInt64(metadata.count), Array("CurveZMQREADY---".utf8) + Self.bytes(nonce), sessionKey)
        return Self.command("READY") + Self.bytes(nonce) + box
    }

    /// Wipes the handshake's secrets (the transient secret and the cookie key); the session key
    /// stays for the messages. Called after INITIATE and when the connection ends.
    mutating func forgetSecrets() {
        sodium_memzero(&transientSecret, transientSecret.count)
        sodium_memzero(&cookieKey, cookieKey.count)
    }

    /// Constant-time comparison of two equally long byte strings.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && sodium_memcmp(a, b, a.count) == 0
    }

    /// The ERROR command libzmq sends when authentication refuses a client.
    static func error(_ status: String) -> [UInt8] {
        command("ERROR") + [UInt8(status.utf8.count)] + Array(status.utf8)
    }

    // MARK: Messages

    static let messageOverhead = 8 + 8 + 16 + 1

    /// Writes one MESSAGE command (name, nonce, box of flags + payload) at `destination`, which
    /// must have room for `messageOverhead + payload.count` bytes.
    mutating func seal(_ payload: UnsafeRawBufferPointer, isMore: Bool, isCommand: Bool, into destination: UnsafeMutableRawBufferPointer) {
        let nonce = takeNonce()
        let base = destination.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for (index, byte) in Self.messageName.enumerated() { base[index] = byte }
        withUnsafeBytes(of: nonce.bigEndian) { UnsafeMutableRawPointer(base + 8).copyMemory(from: $0.baseAddress!, byteCount: 8) }
        // The plaintext goes where the ciphertext will be; libsodium encrypts in place.
        let box = base + 16
        box[16] = (isMore ? 0x01 : 0) | (isCommand ? 0x02 : 0)
        if payload.count > 0 { UnsafeMutableRawPointer(box + 17).copyMemory(from: payload.baseAddress!, byteCount: payload.count) }
        var fullNonce = Self.serverMessagePrefix + Self.bytes(nonce)
        _ = crypto_box_easy_afternm(box, box + 16, UInt64(payload.count + 1), &fullNonce, sessionKey)
    }

    /// An opened MESSAGE: its flags and payload (which owns its bytes).
    struct Opened {
        var isMore: Bool
        var isCommand: Bool
        var payload: Data
    }

    /// Opens one MESSAGE command from the client; a bad box or an old nonce is a protocol error.
    mutating func open(_ message: UnsafeRawBufferPointer) throws -> Opened {
        guard message.count >= Self.messageOverhead, message.starts(with: Self.messageName) else {
            throw Failure("expected a MESSAGE")
        }
        let nonce = Self.uint64(message[8..<16])
        guard nonce > peerNonce else { throw Failure("a MESSAGE reused a nonce") }
        peerNonce = nonce
        let length = message.count - 32
        // Opened into its own allocation; the payload skips the flags byte without copying.
        let plain = UnsafeMutablePointer<UInt8>.allocate(capacity: max(length, 1))
        var fullNonce = Self.clientMessagePrefix + Self.bytes(nonce)
        let box = message.baseAddress!.assumingMemoryBound(to: UInt8.self) + 16
        guard crypto_box_open_easy_afternm(plain, box, UInt64(message.count - 16), &fullNonce, sessionKey) == 0 else {
            plain.deallocate()
            throw Failure("a MESSAGE box does not open")
        }
        let flags = plain[0]
        guard flags & ~0x03 == 0 else {
            plain.deallocate()
            throw Failure("a MESSAGE has reserved flag bits set (\(flags))")
        }
        let payload = length > 1
            ? Data(bytesNoCopy: plain + 1, count: length - 1, deallocator: .custom { _, _ in plain.deallocate() })
            : { plain.deallocate(); return Data() }()
        return Opened(isMore: flags & 0x01 != 0, isCommand: flags & 0x02 != 0, payload: payload)
    }

    // MARK: Bytes

    private static let messageName = Array("\u{07}MESSAGE".utf8)
    private static let serverMessagePrefix = Array("CurveZMQMESSAGES".utf8)
    private static let clientMessagePrefix = Array("CurveZMQMESSAGEC".utf8)

    private mutating func takeNonce() -> UInt64 {
        defer { nextNonce += 1 }
        return nextNonce
    }

    static func command(_ name: String) -> [UInt8] {
        [UInt8(name.utf8.count)] + Array(name.utf8)
    }

    private static func random(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    static func bytes(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func uint64<Bytes: Collection>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func property(_ name: String, _ value: [UInt8]) -> [UInt8] {
        [UInt8(name.utf8.count)] + Array(name.utf8) + bytes(UInt64(value.count)).suffix(4) + value
    }

    /// ZMTP metadata: name length (1 byte), name, value length (4 bytes), value — repeated. Names
    /// are case-insensitive (RFC 37), so they are keyed in lower case.
    static func properties(_ bytes: ArraySlice<UInt8>) -> [String: Data]? {
        var result: [String: Data] = [:]
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let nameLength = Int(bytes[index])
            index += 1
            guard nameLength > 0, bytes.endIndex - index >= nameLength + 4 else { return nil }
            let name = String(decoding: bytes[index..<index + nameLength], as: UTF8.self).lowercased()
            index += nameLength
            let valueLength = Int(uint64(bytes[index..<index + 4]))
            index += 4
            guard bytes.endIndex - index >= valueLength else { return nil }
            result[name] = Data(bytes[index..<index + valueLength])
            index += valueLength
        }
        return result
    }
}

/// A service's long-term CURVE key pair, decoded once and shared by every connection's handshake;
/// the secret is wiped when the last handshake lets go of it.
final class CurveServerKey: @unchecked Sendable {
    let publicKey: [UInt8]
    // Written only in init and deinit.
    private var secret: [UInt8]

    init(_ keyPair: CurveKeyPair) throws {
        guard sodium_init() >= 0 else { throw CurveServerHandshake.Failure("libsodium could not be initialised") }
        guard let publicKey = CurveKeyPair.binary(keyPair.publicKey), let secret = CurveKeyPair.binary(keyPair.secretKey) else {
            throw CurveServerHandshake.Failure("the server key is not Z85 text")
        }
        self.publicKey = publicKey
        self.secret = secret
    }

    func withSecret<Result>(_ body: ([UInt8]) -> Result) -> Result {
        body(secret)
    }

    deinit { sodium_memzero(&secret, secret.count) }
}

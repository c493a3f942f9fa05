import CSodium
import CZeroMQ
import Foundation
import NIOCore

/// The client side of a CurveZMQ handshake (RFC 26) and its message boxes, as pure computation on
/// bytes. Lightbox's clients are libzmq sockets; this side exists to drive the server's own
/// connection handler byte by byte, where libzmq would never send what a hostile peer can: the
/// connection fuzz target (`ZMTPConnectionFuzzEntry`) and the tests' raw client.
struct CurveClientHandshake {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let serverKey: [UInt8]
    private let clientPublic: [UInt8]
    private let clientSecret: [UInt8]
    private var transientPublic = [UInt8](repeating: 0, count: 32)
    private var transientSecret = [UInt8](repeating: 0, count: 32)
    private var serverTransient = [UInt8](repeating: 0, count: 32)
    private var cookie: [UInt8] = []
    private var sessionKey = [UInt8](repeating: 0, count: 32)
    private var nonce: UInt64 = 1

    init(keyPair: CurveKeyPair, serverKey: String) throws {
        guard sodium_init() >= 0 else { throw Failure(description: "libsodium could not be initialised") }
        self.serverKey = try Self.binary(serverKey)
        clientPublic = try Self.binary(keyPair.publicKey)
        clientSecret = try Self.binary(keyPair.secretKey)
    }

    /// A ZMTP 3.1 greeting asking for CURVE, as a client.
    static var greeting: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes[0] = 0xFF
        bytes[9] = 0x7F
        bytes[10] = 3
        bytes[11] = 1
        for (index, byte) in "CURVE".utf8.enumerated() { bytes[12 + index] = byte }
        return bytes
    }

    /// The HELLO command's body.
    mutating func hello() throws -> [UInt8] {
        crypto_box_keypair(&transientPublic, &transientSecret)
        var box = [UInt8](repeating: 0, count: 80)
        let short = takeNonce()
        guard crypto_box_easy(&box, [UInt8](repeating: 0, count: 64), 64, Array("CurveZMQHELLO---".utf8) + short, serverKey, transientSecret) == 0 else {
            throw Failure(description: "the server's key is not a usable Curve25519 key")
        }
        return CurveServerHandshake.command("HELLO") + [1, 0] + [UInt8](repeating: 0, count: 72) + transientPublic + short + box
    }

    /// Reads WELCOME's body: the server's transient key and its cookie.
    mutating func welcome(_ body: [UInt8]) throws {
        guard body.starts(with: CurveServerHandshake.command("WELCOME")), body.count == 168 else { throw Failure(description: "expected WELCOME") }
        var plain = [UInt8](repeating: 0, count: 128)
        guard crypto_box_open_easy(&plain, Array(body[24...]), 144, Array("WELCOME-".utf8) + body[8..<24], serverKey, transientSecret) == 0 else {
            throw Failure(description: "WELCOME does not open")
        }
        serverTransient = Array(plain[0..<32])
        cookie = Array(plain[32..<128])
    }

    /// The INITIATE command's body, vouching for this client's long-term key, with `metadata`
    /// (ZMTP properties); the session key is ready afterwards. `vouchingFor` puts another server's
    /// key in the vouch (a test of the server's check).
    mutating func initiate(metadata: [UInt8], vouchingFor otherServer: String? = nil) throws -> [UInt8] {
        let vouched = otherServer.flatMap { try? Self.binary($0) } ?? serverKey
        var vouchNonce = [UInt8](repeating: 0, count: 16)
        randombytes_buf(&vouchNonce, 16)
        var vouch = [UInt8](repeating: 0, count: 80)
        // Each box fails only on a weak (low-order) server transient key.
        let weakKey = Failure(description: "the server's transient key is not a usable Curve25519 key")
        guard crypto_box_easy(&vouch, transientPublic + vouched, 64, Array("VOUCH---".utf8) + vouchNonce, serverTransient, clientSecret) == 0 else {
            throw weakKey
        }
        let inner = clientPublic + vouchNonce + vouch + metadata
        var box = [UInt8](repeating: 0, count: inner.count + 16)
        let short = takeNonce()
        guard crypto_box_easy(&box, inner, UInt64(inner.count), Array("CurveZMQINITIATE".utf8) + short, serverTransient, transientSecret) == 0,
              crypto_box_beforenm(&sessionKey, serverTransient, transientSecret) == 0 else {
            throw weakKey
        }
        return CurveServerHandshake.command("INITIATE") + cookie + short + box
    }

    /// A DEALER's metadata.
    static var dealerMetadata: [UInt8] {
        CurveServerHandshake.property("Socket-Type", Array("DEALER".utf8)) + CurveServerHandshake.property("Identity", [])
    }

    /// One MESSAGE command's body: flags and `payload`, boxed.
    mutating func seal(_ payload: [UInt8], isMore: Bool = false, isCommand: Bool = false) -> [UInt8] {
        let short = takeNonce()
        let plain = [(isMore ? 0x01 : 0) | (isCommand ? 0x02 : 0)] + payload
        var box = [UInt8](repeating: 0, count: plain.count + 16)
        crypto_box_easy_afternm(&box, plain, UInt64(plain.count), Array("CurveZMQMESSAGEC".utf8) + short, sessionKey)
        return CurveServerHandshake.command("MESSAGE") + short + box
    }

    /// A MESSAGE from the server, opened: (is a ZMTP command, more frames follow, payload).
    func open(_ body: [UInt8]) throws -> (isCommand: Bool, isMore: Bool, payload: [UInt8]) {
        guard body.count >= 33, body.starts(with: CurveServerHandshake.command("MESSAGE")) else { throw Failure(description: "expected MESSAGE") }
        var plain = [UInt8](repeating: 0, count: body.count - 32)
        guard crypto_box_open_easy_afternm(&plain, Array(body[16...]), UInt64(body.count - 16),
                                           Array("CurveZMQMESSAGES".utf8) + body[8..<16], sessionKey) == 0 else {
            throw Failure(description: "a MESSAGE does not open")
        }
        return (plain[0] & 0x02 != 0, plain[0] & 0x01 != 0, Array(plain.dropFirst()))
    }

    /// A ZMTP frame around `body`.
    static func frame(_ body: [UInt8], isCommand: Bool, isMore: Bool = false) -> [UInt8] {
        var buffer = ByteBuffer()
        ZMTPFrameReader.writeHeader(size: body.count, isCommand: isCommand, isMore: isMore, into: &buffer)
        buffer.writeBytes(body)
        return Array(buffer.readableBytesView)
    }

    private mutating func takeNonce() -> [UInt8] {
        defer { nonce += 1 }
        return CurveServerHandshake.bytes(nonce)
    }

    static func binary(_ z85: String) throws -> [UInt8] {
        guard let key = CurveKeyPair.binary(z85) else { throw Failure(description: "not a Z85 key") }
        return key
    }
}

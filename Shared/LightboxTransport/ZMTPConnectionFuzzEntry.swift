import Foundation
import LightboxProtocol
import Logging

/// What the `connection` fuzz target (Fuzz/LightboxFuzz) drives: bytes into a real connection of a
/// real RouterServer, served in this process on a private ipc endpoint. The first byte chooses how
/// the rest is sent:
/// - even: as they are, from the first byte of the greeting on (the decoder, the handshake's checks);
/// - odd: after a completed handshake with a fixed test key, as records that become valid MESSAGE
///   boxes, so that what lies past the cryptography is reached: message frames with any flags, PINGs
///   with any context, multipart messages past the frame limits, and raw frames among them.
/// Each input ends with the client closing its side and waiting until the server closed the
/// connection, so everything sent was handled before the next input.
public enum ZMTPConnectionFuzzEntry {
    struct Served {
        let server: RouterServer
        let endpoint: String
        let serverKey: String
        let client: CurveKeyPair
    }

    /// Limits far below the services' own, so that every limit is within a fuzz input's reach.
    static let served: Served = {
        let keys = try! CurveKeyPair.generate()
        let client = try! CurveKeyPair.generate()
        let endpoint = "ipc://\(NSTemporaryDirectory())/lightbox-fuzz-\(getpid()).sock"
        let clientKey = client.publicKey
        var configuration = RouterServer.Configuration(endpoint: endpoint, keyPair: keys) { key in
            key == clientKey ? .known(.app("fuzz")) : .unknown
        }
        configuration.maximumFrameBytes = 4096
        configuration.maximumMessageBytes = 8192
        configuration.maximumMessageFrames = 8
        configuration.maximumHandshakeFrameBytes = 1024
        configuration.heartbeatInterval = .seconds(60)
        configuration.heartbeatTimeout = .seconds(60)
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        let server = try! RouterServer(configuration, logger: logger) { request, responder in
            responder.succeed(ServiceIdentity(service: "fuzz", principal: request.principal.userId))
        }
        return Served(server: server, endpoint: endpoint, serverKey: keys.publicKey, client: client)
    }()

    /// Starts the server and sends one input of each kind, before fuzzing begins: what is made once
    /// for the process (the listener, lazily made globals) is then not taken for a leak of the first
    /// input that reaches it.
    public static func prepare() {
        run(Data([0]) + Data(CurveClientHandshake.greeting))
        let header = Array(#"{"v":1,"id":"a","op":"service.ping","body":{}}"#.utf8)
        run(Data([1, 4, UInt8(header.count)] + header + [1, 4, 0x50, 0x51, 0x52, 0x53, 3, 20]))
    }

    public static func run(_ bytes: Data) {
        guard let mode = bytes.first else { return }
        let served = self.served
        guard let client = try? RawCurveClient(endpoint: served.endpoint, receiveTimeout: 5) else { return }
        defer { client.finish() }
        let input = Array(bytes.dropFirst())
        guard mode & 1 == 1 else {
            try? client.write(input)
            return
        }
        guard (try? client.handshake(as: served.client, serverKey: served.serverKey)) == "READY" else { return }
        var records = input[...]
        while let kind = records.popFirst() {
            let length = Int(records.popFirst() ?? 0) << (kind & 0x30 == 0x30 ? 4 : 0)
            let payload = Array(records.prefix(length))
            records = records.dropFirst(length)
            let sent: [UInt8]
            switch kind & 0x03 {
            case 0: sent = client.sealed(payload, isMore: kind & 0x04 != 0, isCommand: kind & 0x08 != 0)
            case 1: sent = client.ping(context: payload)
            case 2: sent = payload  // raw bytes among the boxes: a frame header, a broken box, anything
            default: sent = (0..<max(1, length)).flatMap { index in client.sealed([], isMore: index < length - 1) }
            }
            guard (try? client.write(sent)) != nil else { return }
        }
    }
}

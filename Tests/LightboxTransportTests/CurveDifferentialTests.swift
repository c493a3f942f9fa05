import CZeroMQ
import Foundation
@testable import LightboxTransport
import LightboxProtocol
import Logging
import Testing

/// The same client transcripts, valid, replayed and malformed, against libzmq's own CURVE ROUTER and
/// against ours: each is accepted by both or refused by both, but for the checks ours makes and
/// libzmq does not (`isStricterHere`), which ours must refuse.
@Suite(.serialized) struct CurveDifferentialTests {
    enum Outcome: Equatable {
        /// READY came back.
        case accepted
        /// ERROR came back, or the connection was closed, before READY.
        case refused
    }

    /// How a transcript departs from a valid handshake.
    enum Transcript: CaseIterable {
        case valid
        case helloForAnotherServerKey
        case helloWithAnUnknownVersion
        case helloCutShort
        case initiateReplayedFromAnotherConnection
        case initiateWithABrokenCookie
        case initiateVouchingForAnotherServer
        case messageBeforeInitiate
        case reusedMessageNonce
        case helloWithNonZeroPadding

        /// libzmq lets these through: its vouch check does not compare the server key inside the
        /// vouch, and it does not look at HELLO's padding. RFC 26 asks for both.
        var isStricterHere: Bool { self == .initiateVouchingForAnotherServer || self == .helloWithNonZeroPadding }
    }

    /// A server to try: its endpoint and public key.
    struct Server: Sendable {
        let endpoint: String
        let publicKey: String
    }

    static let client = try! CurveKeyPair.generate()

    @Test func libzmqAndLightboxAcceptAndRefuseTheSameTranscripts() async throws {
        // libzmq's ROUTER, as a CURVE server (no ZAP handler: it lets every key in).
        let libzmqKeys = try CurveKeyPair.generate()
        let libzmq = try Socket(type: ZMQ_ROUTER)
        defer { libzmq.close() }
        try libzmq.set(ZMQ_CURVE_SERVER, 1)
        try libzmq.set(ZMQ_CURVE_SECRETKEY, libzmqKeys.secretKey)
        let libzmqEndpoint = TestBus.endpoint()
        try libzmq.bind(libzmqEndpoint)
        // Ours, knowing the client's key.
        let ourKeys = try TestBus.makeKeyPair(as: nil)
        _ = try TestBus.makeKeyPair(as: nil)
        let clientKey = Self.client.publicKey
        let ourEndpoint = TestBus.endpoint()
        let ours = try RouterServer(.init(endpoint: ourEndpoint, keyPair: ourKeys) { key in key == clientKey ? .known(.app("diff")) : .unknown },
                                    logger: Logger(label: "test.differential")) { request, responder in
            responder.succeed(ServiceIdentity(service: "diff", principal: request.principal.userId))
        }
        defer { ours.stop() }

        // The raw client blocks: the transcripts run on a thread of their own, not on a cooperative thread.
        let libzmqServer = Server(endpoint: libzmqEndpoint, publicKey: libzmqKeys.publicKey)
        let ourServer = Server(endpoint: ourEndpoint, publicKey: ourKeys.publicKey)
        let outcomes = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try Transcript.allCases.map { ($0, try Self.run($0, against: libzmqServer), try Self.run($0, against: ourServer)) }
                })
            }
        }
        for (transcript, theirs, mine) in outcomes {
            print("\(transcript): libzmq \(theirs), lightbox \(mine)")
            #expect(mine == (transcript == .valid ? .accepted : .refused), "\(transcript)")
            if !transcript.isStricterHere {
                #expect(theirs == mine, "\(transcript): libzmq \(theirs), lightbox \(mine)")
            }
        }
    }

    /// Plays `transcript` against `server`.
    static func run(_ transcript: Transcript, against server: Server) throws -> Outcome {
        let connection = try RawCurveClient(endpoint: server.endpoint, receiveTimeout: 20)
        let serverKey = transcript == .helloForAnotherServerKey ? try CurveKeyPair.generate().publicKey : server.publicKey
        var curve = try CurveClientHandshake(keyPair: client, serverKey: serverKey)
        do {
            try connection.write(CurveClientHandshake.greeting)
            _ = try connection.readExactly(64)
            var hello = try curve.hello()
            switch transcript {
            case .helloWithAnUnknownVersion: hello[6] = 2
            case .helloCutShort: hello.removeLast(8)
            case .helloWithNonZeroPadding: hello[40] = 1
            default: break
            }
            try connection.write(CurveClientHandshake.frame(hello, isCommand: true))
            if transcript == .messageBeforeInitiate {
                try connection.write(CurveClientHandshake.frame(Array("\u{07}MESSAGE".utf8) + [UInt8](repeating: 1, count: 40), isCommand: false))
                _ = try? connection.readFrame()  // WELCOME, answering HELLO
                return connection.isClosedByServer() ? .refused : .accepted
            }
            try curve.welcome(try connection.readFrame().body)
            var initiate = try curve.initiate(metadata: CurveClientHandshake.dealerMetadata)
            switch transcript {
            case .initiateReplayedFromAnotherConnection:
                // The INITIATE of a complete handshake on another connection: its cookie is not this one's.
                initiate = try validInitiate(against: server)
            case .initiateWithABrokenCookie:
                initiate[30] ^= 0x01
            case .initiateVouchingForAnotherServer:
                initiate = try curve.initiate(metadata: CurveClientHandshake.dealerMetadata, vouchingFor: try CurveKeyPair.generate().publicKey)
            default: break
            }
            try connection.write(CurveClientHandshake.frame(initiate, isCommand: true))
            let answer = try outcome(connection)
            guard answer == .accepted, transcript == .reusedMessageNonce else { return answer }
            // Two messages under one nonce: the second must end the connection.
            var replay = curve
            let header = Array(#"{"v":1,"id":"n","op":"service.ping","body":{}}"#.utf8)
            try connection.write(CurveClientHandshake.frame(curve.seal(header), isCommand: false))
            try connection.write(CurveClientHandshake.frame(replay.seal(header), isCommand: false))
            return connection.isClosedByServer() ? .refused : .accepted
        } catch {
            return .refused
        }
    }

    /// READY or ERROR (or a close) as the server's answer to INITIATE.
    static func outcome(_ connection: RawCurveClient) throws -> Outcome {
        guard let answer = try? connection.readFrame().body else { return .refused }
        return answer.starts(with: Array("\u{05}READY".utf8)) ? .accepted : .refused
    }

    /// A valid INITIATE, made on a connection of its own (which is then closed).
    static func validInitiate(against server: Server) throws -> [UInt8] {
        let connection = try RawCurveClient(endpoint: server.endpoint, receiveTimeout: 20)
        var curve = try CurveClientHandshake(keyPair: client, serverKey: server.publicKey)
        try connection.write(CurveClientHandshake.greeting)
        _ = try connection.readExactly(64)
        try connection.write(CurveClientHandshake.frame(try curve.hello(), isCommand: true))
        try curve.welcome(try connection.readFrame().body)
        return try curve.initiate(metadata: CurveClientHandshake.dealerMetadata)
    }
}

import CZeroMQ
import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

@Suite(.serialized) struct SecurityAndErrorTests {
    @Test func identityComesFromTheKeyAndTokensStayWithTheirApp() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let first = try await harness.registerApp("first")
        let second = try await harness.registerApp("second")
        #expect(try await first.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:first")
        let items = try await harness.pick(as: first) { Array($0.prefix(1).map(\.identifier)) }
        let stolen = ItemProvider(items[0].itemProvider.descriptor, connection: second)
        #expect(await errorCode { try await stolen.loadDataRepresentation() } == .tokenUnknown)
        #expect(await errorCode { try await stolen.describe() } == .tokenUnknown)
        // The rightful app still loads it.
        #expect(try await items[0].itemProvider.loadDataRepresentation().isEmpty == false)
        // Apps cannot use the owner's operations.
        #expect(await errorCode { try await OwnerSurface(picker: first).pendingPicks() } == .notAuthorized)
        #expect(await errorCode { try await OwnerSurface(picker: first).revokeAll(of: "second") } == .notAuthorized)
    }

    @Test func anUnregisteredKeyGetsNothing() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let stranger = try await harness.directory.connectToPicker(as: try CurveKeyPair.generate(), timeout: .milliseconds(1500))
        #expect(await errorCode { try await stranger.request(.ping, Empty(), as: ServiceIdentity.self) } == .timeout)
        #expect(await errorCode { try await PhotoPicker(connection: stranger).pick(timeout: .milliseconds(1500)) } == .timeout)
        #expect(try await harness.owner().pendingPicks().isEmpty)
    }

    @Test func malformedRequestsGetClearErrorsAndTheServiceKeepsServing() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let keyPair = try harness.directory.appKeyPair("demo")
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.pickerService)
        let raw = try RawDealer(endpoint: harness.directory.pickerEndpoint, serverKey: serverKey, keyPair: keyPair)
        defer { raw.close() }

        let cases: [(frames: [Data], code: ErrorCode)] = [
            ([Data("{not json".utf8)], .badRequest),
            ([Data(#"{"v":1,"op":"service.ping"}"#.utf8)], .badRequest),
            ([Data(#"{"v":99,"id":"x","op":"service.ping"}"#.utf8)], .unsupportedVersion),
            ([Data(#"{"v":1,"id":"x","op":"picker.explode"}"#.utf8)], .unknownOp),
            ([Data(#"{"v":1,"id":"x","op":"provider.load","body":{"token":42}}"#.utf8)], .badRequest),
            ([Data(#"{"v":1,"id":"x","op":"picker.pick","body":{"configuration":{"filter":"selfies"}}}"#.utf8)], .badRequest),
            ([Data()], .badRequest),
        ]
        for (frames, code) in cases {
            let reply = try raw.exchange(frames)
            let error = try WireCoding.decode(ReplyEnvelope<ErrorBody>.self, from: reply)
            #expect(error.status == .error)
            #expect(error.body.code == code, "\(String(decoding: frames[0], as: UTF8.self))")
            #expect(error.body.message.count > 20)
        }
        #expect(try await app.request(.ping, Empty(), as: ServiceIdentity.self).service == "picker")
    }

    @Test func revokedAndExpiredTokensGetTheirOwnCodes() async throws {
        // Long enough that a loaded machine does not expire the tokens before they are revoked.
        let harness = try await ServiceHarness.start(tokenLifetime: 20)
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let owner = try await harness.owner()
        let items = try await harness.pick(as: app, PickerConfiguration(selectionLimit: 3)) { Array($0.prefix(3).map(\.identifier)) }
        try #require(items.count == 3)

        #expect(try await owner.revoke(token: items[0].itemProvider.descriptor.token) == 1)
        #expect(await errorCode { try await items[0].itemProvider.loadDataRepresentation() } == .tokenRevoked)
        #expect(try await items[1].itemProvider.loadDataRepresentation().isEmpty == false)

        // `lightbox user revoke --app` revokes the rest.
        let revoke = try await harness.cli(["user", "revoke", "--app", "demo"])
        #expect(revoke.status == 0)
        #expect(revoke.output.contains("revoked 2 token(s)"))
        #expect(await errorCode { try await items[1].itemProvider.describe() } == .tokenRevoked)

        let fresh = try await harness.pick(as: app) { Array($0.prefix(1).map(\.identifier)) }
        try await sleep(pastExpiryOf: fresh[0].itemProvider)
        #expect(await errorCode { try await fresh[0].itemProvider.loadDataRepresentation() } == .tokenExpired)
        #expect(await errorCode { try await fresh[0].itemProvider.describe() } == .tokenExpired)
    }

    @Test func typesOutsideTheProviderAreRefused() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let items = try await harness.pick(as: app) { assets in assets.filter { $0.fileName == "sunset.png" }.map(\.identifier) }
        #expect(await errorCode { try await items[0].itemProvider.loadDataRepresentation(for: .movie) } == .typeNotRegistered)
        #expect(await errorCode { try await items[0].itemProvider.loadDataRepresentation(for: .jpeg) } == .typeNotRegistered)
        #expect(try await items[0].itemProvider.loadDataRepresentation(for: .image).count > 0)
    }
}

/// A bare DEALER for sending frames no well-behaved client would send.
final class RawDealer {
    let context: UnsafeMutableRawPointer
    let socket: UnsafeMutableRawPointer

    init(endpoint: String, serverKey: String, keyPair: CurveKeyPair) throws {
        context = zmq_ctx_new()
        socket = zmq_socket(context, ZMQ_DEALER)
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, 4)
        for (option, value) in [(ZMQ_CURVE_SERVERKEY, serverKey), (ZMQ_CURVE_PUBLICKEY, keyPair.publicKey), (ZMQ_CURVE_SECRETKEY, keyPair.secretKey)] {
            zmq_setsockopt(socket, option, value, 40)
        }
        var timeout: Int32 = 5000
        zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout, 4)
        zmq_connect(socket, endpoint)
    }

    func exchange(_ frames: [Data]) throws -> Data {
        for (index, frame) in frames.enumerated() {
            _ = frame.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, index < frames.count - 1 ? ZMQ_SNDMORE : 0) }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = zmq_recv(socket, &buffer, buffer.count, 0)
        guard count >= 0 else { throw LightboxError(.timeout, "no reply to a malformed request") }
        return Data(buffer.prefix(Int(count)))
    }

    func close() {
        zmq_close(socket)
        zmq_ctx_term(context)
    }
}

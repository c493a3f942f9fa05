import CZeroMQ
import Foundation
import NIOCore
import LightboxProtocol
@testable import LightboxTransport
import Logging
import Synchronization
import Testing

/// The keys the tests' servers know, shared by every test here.
enum TestBus {
    static let principals = Mutex<[String: Principal]>([:])
    static let identify: @Sendable (String) async -> Identification = { key in
        principals.withLock { $0[key] }.map { .known($0) } ?? .unknown
    }

    static func makeKeyPair(as principal: Principal?) throws -> CurveKeyPair {
        let keyPair = try CurveKeyPair.generate()
        if let principal { principals.withLock { $0[keyPair.publicKey] = principal } }
        return keyPair
    }

    static func endpoint() -> String { "ipc:///tmp/lbt-\(UUID().uuidString.prefix(12)).sock" }
}

struct DataChunkSource: ChunkSource {
    let data: Data
    var totalBytes: Int64 { Int64(data.count) }
    init(_ data: Data) {
        self.data = data
    }
    func read(at offset: Int64, upTo maximumCount: Int) async throws -> ByteBuffer {
        ByteBuffer(bytes: data.dropFirst(Int(offset)).prefix(maximumCount))
    }
}

extension RouterServer {
    /// The server's public key is needed by clients; tests keep it beside the server.
    static func clientConfiguration(endpoint: String, serverKey: String, keyPair: CurveKeyPair, timeout: Duration = .seconds(5)) -> DealerConnection.Configuration {
        var configuration = DealerConnection.Configuration(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair)
        configuration.defaultTimeout = timeout
        return configuration
    }
}

@Suite(.serialized) struct RouterServerTests {
    struct Running {
        let server: RouterServer
        let endpoint: String
        let serverKey: String
    }

    func start(streamBytes: Int = 0, streamIdleTimeout: Duration = .seconds(120), heartbeatInterval: Duration = .seconds(5)) throws -> Running {
        let endpoint = TestBus.endpoint()
        let serverKeys = try TestBus.makeKeyPair(as: nil)
        var configuration = RouterServer.Configuration(endpoint: endpoint, keyPair: serverKeys, identify: TestBus.identify)
        configuration.streamIdleTimeout = streamIdleTimeout
        configuration.heartbeatInterval = heartbeatInterval
        configuration.heartbeatTimeout = heartbeatInterval * 3
        let server = try RouterServer(configuration, logger: Logger(label: "test.server")) { request, responder in
            switch request.op {
            case .whoami:
                responder.succeed(ServiceIdentity(service: "echo", principal: request.principal.userId))
            case .load:
                _ = await responder.stream(DataChunkSource(Data((0..<streamBytes).map { UInt8($0 % 251) })), credit: 2, chunkSize: 1000,
                                           type: .data, suggestedName: nil)
            case .assetDetails:
                // JSON has no NaN: this body cannot be encoded.
                responder.succeed(["value": Double.nan])
            default:
                responder.fail(LightboxError(.unknownOp, "no \(request.op)"))
            }
        }
        return Running(server: server, endpoint: endpoint, serverKey: serverKeys.publicKey)
    }

    // Generous: a loaded machine can take seconds for a CURVE handshake; only the stranger test waits on purpose.
    func connect(_ running: Running, as principal: Principal?, timeout: Duration = .seconds(20),
                 heartbeatInterval: Duration = .seconds(5)) throws -> DealerConnection {
        let keys = try TestBus.makeKeyPair(as: principal)
        var configuration = RouterServer.clientConfiguration(endpoint: running.endpoint, serverKey: running.serverKey, keyPair: keys, timeout: timeout)
        configuration.heartbeatInterval = heartbeatInterval
        configuration.heartbeatTimeout = heartbeatInterval * 3
        return try DealerConnection(configuration)
    }

    /// A reply that cannot be encoded is not dropped (the client would wait for its timeout): the
    /// client gets `internal` at once, and the connection goes on.
    @Test func aReplyThatCannotBeEncodedBecomesInternal() async throws {
        let running = try start()
        defer { running.server.stop() }
        let app = try connect(running, as: .app("nan"), timeout: .seconds(30))
        do {
            _ = try await app.request(.assetDetails, Empty(), as: [String: Double].self)
            Issue.record("a NaN body cannot be a reply")
        } catch let error as LightboxError {
            // Not `timeout`: the answer came.
            #expect(error.code == .internal, "\(error)")
        }
        #expect(try await app.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:nan")
    }

    @Test func principalComesFromTheCurveKey() async throws {
        let running = try start()
        defer { running.server.stop() }
        let app = try connect(running, as: .app("demo"))
        let owner = try connect(running, as: .owner)
        #expect(try await app.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:demo")
        #expect(try await owner.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "owner")
    }

    /// Requests that arrive together on one connection are answered together (their replies leave
    /// in one flush): every one gets its own answer, none is held back waiting for a flush. The
    /// heartbeats both ways (whose pongs flush too) are slowed far past the requests' time limit,
    /// so a reply left unflushed shows as a timeout rather than a late answer.
    @Test func manyRequestsInFlightOnOneConnectionAreEachAnswered() async throws {
        let running = try start(heartbeatInterval: .seconds(600))
        defer { running.server.stop() }
        let app = try connect(running, as: .app("pipelining"), timeout: .seconds(30), heartbeatInterval: .seconds(600))
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<48 {
                group.addTask { try await app.request(.whoami, Empty(), as: ServiceIdentity.self).principal }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "app:pipelining", count: 48))
    }

    @Test func unknownKeyGetsNothing() async throws {
        let running = try start()
        defer { running.server.stop() }
        let stranger = try connect(running, as: nil, timeout: .milliseconds(700))
        do {
            _ = try await stranger.request(.whoami, Empty(), as: ServiceIdentity.self)
            Issue.record("an unknown key must get no answer")
        } catch let error as LightboxError {
            #expect(error.code == .timeout)
        }
    }

    @Test func aClientWithoutCurveOrWithAnotherServerKeyGetsNothing() async throws {
        let running = try start()
        defer { running.server.stop() }
        let keys = try TestBus.makeKeyPair(as: .app("known"))
        let wrongServer = try DealerConnection(RouterServer.clientConfiguration(
            endpoint: running.endpoint, serverKey: try CurveKeyPair.generate().publicKey, keyPair: keys, timeout: .milliseconds(700)))
        await #expect(throws: LightboxError.self) { _ = try await wrongServer.request(.whoami, Empty(), as: ServiceIdentity.self) }
        // A plain (NULL mechanism) DEALER: the greeting is refused.
        let plain = try Socket(type: ZMQ_DEALER)
        defer { plain.close() }
        try plain.connect(running.endpoint)
        _ = try plain.send([try WireCoding.encode(RequestEnvelope(id: "plain", op: .whoami, body: Empty()))])
        try await Task.sleep(for: .milliseconds(700))
        #expect(try plain.receive() == nil)
        // The same key with the right server key is served.
        let app = try connect(running, as: .app("known"))
        #expect(try await app.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:known")
    }

    @Test func bytesThatAreNotZMTPCloseTheConnection() async throws {
        let running = try start()
        defer { running.server.stop() }
        let fd = try SilentLinkProxy.unixSocket(String(running.endpoint.dropFirst("ipc://".count)), listen: false)
        defer { close(fd) }
        let request = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = write(fd, request, request.count)
        // The server's greeting may come first; then end of stream.
        var buffer = [UInt8](repeating: 0, count: 256)
        var total = 0
        var pollItem = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&pollItem, 1, 3000) > 0 {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            total += count
        }
        #expect(total <= ZMTPFrameReader.greetingSize)
        #expect(read(fd, &buffer, buffer.count) == 0)
        let app = try connect(running, as: .app("after"))
        #expect(try await app.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:after")
    }

    /// An abstract socket (`ipc://@name`) is refused with a sentence, not bound as a file named "@name".
    @Test func anAbstractIPCEndpointIsRefusedWithASentence() throws {
        let configuration = RouterServer.Configuration(endpoint: "ipc://@lightbox-test-\(UUID().uuidString.prefix(8))",
                                                       keyPair: try CurveKeyPair.generate(), identify: TestBus.identify)
        let error = #expect(throws: TransportError.self) {
            try RouterServer(configuration, logger: Logger(label: "test.server")) { _, _ in }
        }
        #expect(error?.message.contains("ipc:///path") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: "@lightbox-test"))
    }

    @Test func errorRepliesAreThrown() async throws {
        let running = try start()
        defer { running.server.stop() }
        let app = try connect(running, as: .app("demo"))
        do {
            _ = try await app.request(OperationName(rawValue: "nope"), Empty(), as: Empty.self)
            Issue.record("expected an error")
        } catch let error as LightboxError {
            #expect(error.code == .unknownOp)
        }
    }

    @Test func streamRespectsCreditAndDeliversEveryByte() async throws {
        let running = try start(streamBytes: 10_500)
        defer { running.server.stop() }
        let app = try connect(running, as: .app("demo"))
        let id = "load-1"
        var received = Data()
        var completion: StreamCompletion?
        for try await reply in app.send(.load, LoadRequest(token: "t"), id: id) {
            if reply.status == .chunk {
                let header = try reply.body(ChunkHeader.self)
                #expect(header.offset == Int64(received.count))
                #expect(header.total == 10_500)
                received.append(reply.attachments[0])
                app.post(.streamCredit, StreamCredit(stream: id, credit: 1))
            } else if reply.status == .ok {
                completion = try reply.body(StreamCompletion.self)
            }
        }
        #expect(received == Data((0..<10_500).map { UInt8($0 % 251) }))
        #expect(completion?.bytes == 10_500)
        #expect(completion?.sha256 == SHA256Hasher.hex(received))
    }

    @Test func withoutCreditTheStreamPauses() async throws {
        let running = try start(streamBytes: 10_000)
        defer { running.server.stop() }
        let app = try connect(running, as: .app("demo"), timeout: .seconds(60))
        let chunks = Mutex(0)
        let finished = Mutex(false)
        let reading = Task {
            for try await reply in app.send(.load, LoadRequest(token: "t"), id: "load-2") where reply.status == .chunk {
                chunks.withLock { $0 += 1 }
            }
            finished.withLock { $0 = !Task.isCancelled }
        }
        defer { reading.cancel() }
        // The two credited chunks come however loaded the machine is; then a second of quiet, in which
        // a server that ignored credit would have sent the rest (8 more chunks) at once.
        for _ in 0..<600 where chunks.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .seconds(1))
        // The initial credit was 2 chunks: no more may arrive until the client grants more.
        #expect(chunks.withLock { $0 } == 2)
        #expect(!finished.withLock { $0 }, "a stream without credit must not finish")
    }

    @Test func aStreamWithoutCreditIsDroppedWithAnError() async throws {
        let running = try start(streamBytes: 10_000, streamIdleTimeout: .milliseconds(300))
        defer { running.server.stop() }
        // The client's own timeout only has to outlast the server's idle limit, on a loaded machine too.
        let app = try connect(running, as: .app("demo"), timeout: .seconds(30))
        var chunks = 0
        do {
            for try await reply in app.send(.load, LoadRequest(token: "t"), id: "idle") where reply.status == .chunk { chunks += 1 }
            Issue.record("an idle stream must end with an error")
        } catch let error as LightboxError {
            #expect(error.code == .timeout)
            #expect(error.message.contains("stream.credit"))
        }
        #expect(chunks == 2)
    }
}

import Foundation
import NIOCore
@testable import LightboxTransport
import LightboxProtocol
import Logging
import Synchronization
import Testing

/// Per-peer reply queues, per-principal allowances, the whole-message size limit and peer-gone
/// tracking, through a real ROUTER and real client sockets. The time limit only cuts off a test
/// whose awaited event never comes; beside the whole suite these tests take minutes.
@Suite(.serialized, .timeLimit(.minutes(10))) struct FairTransportTests {
    struct Running {
        let server: RouterServer
        let endpoint: String
        let serverKey: String
        let kept: Kept
    }

    /// The responders of held `watch` requests, and the tests waiting for the first.
    final class Kept: Sendable {
        private let state = Mutex<(responders: [Responder], waiting: [CheckedContinuation<Responder, Never>])>(([], []))

        func append(_ responder: Responder) {
            let waiting = state.withLock { state in
                state.responders.append(responder)
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume(returning: responder) }
        }

        /// The first held responder, once the server holds one (the event, not a poll: a loaded
        /// machine may take long to get there, and a test that never gets there is cut off by its
        /// time limit).
        func first() async -> Responder {
            await withCheckedContinuation { continuation in
                let first: Responder? = state.withLock { state in
                    if let first = state.responders.first { return first }
                    state.waiting.append(continuation)
                    return nil
                }
                if let first { continuation.resume(returning: first) }
            }
        }
    }

    /// A server that answers whoami, streams `load`, holds `watch` open, and sleeps on `pick`.
    func start(_ adjust: (inout RouterServer.Configuration) -> Void = { _ in }) throws -> Running {
        let endpoint = TestBus.endpoint()
        let serverKeys = try TestBus.makeKeyPair(as: nil)
        var configuration = RouterServer.Configuration(endpoint: endpoint, keyPair: serverKeys, identify: TestBus.identify)
        adjust(&configuration)
        let kept = Kept()
        let server = try RouterServer(configuration, logger: Logger(label: "test.fair")) { request, responder in
            switch request.op {
            case .whoami, .ping:
                responder.succeed(ServiceIdentity(service: "fair", principal: request.principal.userId))
            case .load:
                _ = await responder.stream(DataChunkSource(Data(count: 200_000)), credit: 4, chunkSize: 10_000, type: .data, suggestedName: nil)
            case .watch:
                kept.append(responder)
            case .pick:
                try? await Task.sleep(for: .milliseconds(500))
                responder.succeed(Empty())
            case .imageProperties:
                // A file far larger than memory should hold, granted the most credit a load may ask for.
                _ = await responder.stream(ZeroChunkSource(totalBytes: 1 << 30), credit: 64, chunkSize: 4 << 20, type: .data, suggestedName: nil)
            case .describe:
                responder.succeed(["blob": String(repeating: "x", count: 1 << 20)])
            default:
                responder.fail(LightboxError(.unknownOp, "no \(request.op)"))
            }
        }
        return Running(server: server, endpoint: endpoint, serverKey: serverKeys.publicKey, kept: kept)
    }

    func connect(_ running: Running, as principal: Principal, timeout: Duration = .seconds(10)) throws -> DealerConnection {
        let keys = try TestBus.makeKeyPair(as: principal)
        return try DealerConnection(RouterServer.clientConfiguration(endpoint: running.endpoint, serverKey: running.serverKey, keyPair: keys, timeout: timeout))
    }

    func pings(_ connection: DealerConnection, count: Int) async throws -> [Duration] {
        var durations: [Duration] = []
        for _ in 0..<count {
            let started = ContinuousClock.now
            _ = try await connection.request(.whoami, Empty(), as: ServiceIdentity.self)
            durations.append(.now - started)
        }
        return durations
    }

    @Test func aPeerThatNeverReadsDelaysOnlyItself() async throws {
        let running = try start { configuration in
            configuration.highWaterMark = 16
            configuration.maximumQueuedReplies = 200
        }
        defer { running.server.stop() }
        let other = try connect(running, as: .app("other"))
        let before = percentiles(try await pings(other, count: 200))

        let hostile = NonReadingPeer(endpoint: running.endpoint, serverKey: running.serverKey,
                                     keyPair: try TestBus.makeKeyPair(as: .app("hostile")), count: 10_000) {
            NonReadingPeer.request(.whoami, id: "h\($0)")
        }
        defer { hostile.stop() }
        // Wait until the hostile peer's pipe is full, so every later reply to it must queue.
        for _ in 0..<100 where hostile.sent.withLock({ $0 }) < 2000 { try await Task.sleep(for: .milliseconds(50)) }
        let during = percentiles(try await pings(other, count: 200))
        // A stream to the other app runs to the end while the hostile peer's replies wait.
        var chunks = 0
        for try await reply in other.send(.load, LoadRequest(token: "t"), id: "load-fair") where reply.status == .chunk {
            chunks += 1
            other.post(.streamCredit, StreamCredit(stream: "load-fair", credit: 1))
        }
        #expect(chunks == 20)
        print("whoami from another app, ms: p50 \(before.p50) p99 \(before.p99) alone; p50 \(during.p50) p99 \(during.p99) beside a peer that never reads (sent \(hostile.sent.withLock { $0 }))")
    }

    /// Replies of 1 MiB to a peer that never reads: what waits for it is bounded in bytes (4 MiB in
    /// the connection, 64 MiB in its queue), not only in replies, and past that it is dropped.
    @Test func largeRepliesToAPeerThatNeverReadsAreBoundedInBytes() async throws {
        let running = try start()
        defer { running.server.stop() }
        let before = ProcessMemory.peakResidentBytes()
        let hostile = NonReadingPeer(endpoint: running.endpoint, serverKey: running.serverKey,
                                     keyPair: try TestBus.makeKeyPair(as: .app("hoarder")), count: 1_500) { index in
            NonReadingPeer.request(.describe, id: "d\(index)")
        }
        defer { hostile.stop() }
        for _ in 0..<300 where hostile.sent.withLock({ $0 }) < 1_500 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .seconds(1))
        let growth = ProcessMemory.peakResidentBytes() - before
        print("1,500 replies of 1 MiB to a peer that never reads: this process's peak grew \(growth >> 20) MiB")
        #expect(growth < 160 << 20)
        // Another app is served all along (the bound tells "never" from "slowly, on a loaded machine").
        let other = try connect(running, as: .app("reader"), timeout: .seconds(60))
        #expect(try await other.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:reader")
    }

    /// Streams with the most credit (64 chunks of 4 MiB each) to a peer that never reads: a chunk
    /// leaves only while the connection is writable, so what the server holds stays near one chunk
    /// per stream, not the 256 MiB the credit allows.
    @Test func streamsToAPeerThatNeverReadsHoldAChunkOrTwoNotTheirCredit() async throws {
        let running = try start()
        defer { running.server.stop() }
        let before = ProcessMemory.peakResidentBytes()
        let hostile = NonReadingPeer(endpoint: running.endpoint, serverKey: running.serverKey,
                                     keyPair: try TestBus.makeKeyPair(as: .app("hoarder")), count: 2) { index in
            NonReadingPeer.request(.imageProperties, id: "big\(index)")
        }
        defer { hostile.stop() }
        for _ in 0..<300 where hostile.sent.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .seconds(2))
        let growth = ProcessMemory.peakResidentBytes() - before
        print("2 streams with credit for 256 MiB each to a peer that never reads: this process's peak grew \(growth >> 20) MiB")
        // Below the 64 MiB the connection's queue may hold before the peer is dropped: the streams
        // wait for room instead of filling it. (The peak is the whole test process's, with other
        // suites running beside this one, so the bound is the queue's own, not a tighter guess.)
        #expect(growth < 64 << 20)
        // Another app is served all along (the bound tells "never" from "slowly, on a loaded machine").
        let other = try connect(running, as: .app("reader"), timeout: .seconds(60))
        #expect(try await other.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:reader")
    }

    @Test func aPeerWhoseRepliesCannotMoveForTheTimeBoundIsDropped() async throws {
        let running = try start { configuration in
            configuration.highWaterMark = 16
            configuration.maximumQueuedReplies = 1_000_000
            configuration.stalledPeerTimeout = .milliseconds(500)
        }
        defer { running.server.stop() }
        let hostile = NonReadingPeer(endpoint: running.endpoint, serverKey: running.serverKey,
                                     keyPair: try TestBus.makeKeyPair(as: .app("slow")), count: 3000) { index in
            NonReadingPeer.request(index == 0 ? .watch : .whoami, id: "s\(index)")
        }
        defer { hostile.stop() }
        let watch = await running.kept.first()
        for _ in 0..<100 where watch.isConnected { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!watch.isConnected)
        // Another app is served all along.
        let other = try connect(running, as: .app("other"))
        #expect(try await other.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:other")
    }

    @Test func aWholeMessageOverTheLimitIsRefusedAndTheServiceGoesOn() async throws {
        let running = try start { $0.maximumMessageBytes = 2 << 20 }
        defer { running.server.stop() }
        let app = try connect(running, as: .app("big"))
        let frames = Array(repeating: Data(count: 512 << 10), count: 6)
        do {
            for try await _ in app.send(.whoami, Empty(), attachments: frames) {}
            Issue.record("a 3 MiB message must be refused")
        } catch let error as LightboxError {
            #expect(error.code == .badRequest)
            #expect(error.message.contains("at most \(2 << 20) bytes"))
        }
        let fitting = Array(repeating: Data(count: 512 << 10), count: 3)
        var answered = false
        for try await reply in app.send(.whoami, Empty(), attachments: fitting) where reply.status == .ok { answered = true }
        #expect(answered)
    }

    @Test func eachAppHasItsOwnAllowanceAndTheOwnerIsAlwaysServed() async throws {
        let running = try start { configuration in
            configuration.maximumRequestsPerApp = 4
            configuration.maximumConcurrentRequests = 6
        }
        defer { running.server.stop() }
        let flooding = try connect(running, as: .app("flood"))
        let second = try connect(running, as: .app("second"))
        let owner = try connect(running, as: .owner)
        let outcomes = try await withThrowingTaskGroup(of: LightboxError?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await flooding.request(.pick, Empty(), as: Empty.self)
                        return nil
                    } catch let error as LightboxError { return error }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            // The flooding app holds 4 of the apps' 6 slots: another app still gets 2, the owner its own.
            #expect(try await owner.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "owner")
            #expect(try await second.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:second")
            return try await group.reduce(into: [LightboxError?]()) { $0.append($1) }
        }
        let busy = outcomes.compactMap { $0 }
        #expect(busy.count == 6)
        #expect(busy.allSatisfy { $0.code == .busy && $0.message.contains("App flood already has 4 requests in flight") })
    }

    @Test func aClosedConnectionIsNoticedAndItsRequestsReleased() async throws {
        let running = try start()
        defer { running.server.stop() }
        let app = try connect(running, as: .app("leaving"))
        _ = app.send(.watch, Empty(), timeout: .seconds(60))
        let responder = await running.kept.first()
        #expect(responder.isConnected)
        app.close()
        // A send to the vanished connection is how the ROUTER learns it is gone.
        for _ in 0..<100 where responder.isConnected {
            responder.event(Empty())
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!responder.isConnected)
    }

    @Test func aPeerWhoseLinkGoesSilentIsDroppedByHeartbeats() async throws {
        let running = try start { configuration in
            configuration.heartbeatInterval = .milliseconds(200)
            configuration.heartbeatTimeout = .milliseconds(600)
        }
        defer { running.server.stop() }
        let link = try SilentLinkProxy(to: running.endpoint)
        defer { link.stop() }
        let keys = try TestBus.makeKeyPair(as: .app("partitioned"))
        let app = try DealerConnection(RouterServer.clientConfiguration(endpoint: link.endpoint, serverKey: running.serverKey, keyPair: keys))
        defer { app.close() }
        _ = app.send(.watch, Empty(), timeout: .seconds(60))
        let watch = await running.kept.first()
        try await Task.sleep(for: .seconds(1))
        // Pings were answered (through the link) for longer than the timeout: still connected.
        #expect(watch.isConnected)
        link.goSilent()
        // Nothing is sent to the watch: only the heartbeats can notice the silence.
        for _ in 0..<100 where watch.isConnected { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!watch.isConnected)
    }

    @Test func aFrameOverTheLimitClosesTheConnectionBeforeItIsRead() async throws {
        let running = try start { $0.maximumFrameBytes = 1 << 20 }
        defer { running.server.stop() }
        let app = try connect(running, as: .app("bigframe"), timeout: .seconds(3))
        _ = app.send(.watch, Empty(), timeout: .seconds(60))
        let watch = await running.kept.first()
        do {
            for try await _ in app.send(.whoami, Empty(), attachments: [Data(count: 2 << 20)]) {}
            Issue.record("a frame over the limit must get no answer")
        } catch {}
        // The connection that carried it was closed (its watch with it); the client connects again.
        #expect(!watch.isConnected)
        #expect(try await app.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:bigframe")
    }
}

/// Zeros, made as they are read: a source of any size that costs no memory until a chunk is asked for.
struct ZeroChunkSource: ChunkSource {
    let totalBytes: Int64
    func read(at offset: Int64, upTo maximumCount: Int) async throws -> ByteBuffer {
        ByteBuffer(repeating: 0, count: Int(min(Int64(maximumCount), totalBytes - offset)))
    }
}

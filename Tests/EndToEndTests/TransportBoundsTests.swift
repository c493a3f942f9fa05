import Foundation
import LightboxClient
import LightboxProtocol
@testable import LightboxTransport
import Testing

/// What a registered app can make a service hold, tried against the real lightbox-picker with a
/// CurveZMQ client that sends what libzmq never would. Each test prints the picker's growth.
/// The raw client's reads and writes block: each runs on a thread of its own (`onOwnThread`), never
/// on Swift's cooperative threads, which every test running at once shares.
@Suite(.serialized) struct TransportBoundsTests {
    static let megabyte: Int64 = 1 << 20

    /// A registered app's raw connection to the picker, past READY.
    static func rawApp(_ harness: ServiceHarness, _ id: String) async throws -> RawCurveClient {
        _ = try await harness.registerApp(id)
        let client = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.picker, waitingUpTo: .seconds(10))
        let keyPair = try harness.directory.appKeyPair(id)
        #expect(try await onOwnThread { try client.handshake(as: keyPair, serverKey: serverKey) } == "READY")
        return client
    }

    /// How much the picker's peak memory grew while `body` ran; printed after `what`, and expected
    /// below 64 MiB.
    static func expectBoundedGrowth(_ harness: ServiceHarness, _ what: String, _ body: () async throws -> Void) async throws {
        try harness.resetPeakMemory(of: harness.picker)
        let before = harness.peakMemory(of: harness.picker)
        try await body()
        let growth = harness.peakMemory(of: harness.picker) - before
        print("\(what): picker peak grew \(growth / megabyte) MiB")
        #expect(growth < 64 * megabyte, "\(what)")
    }

    static func reply(_ client: RawCurveClient) throws -> [String: Any] {
        let frames = try client.readMessage()
        return try #require(try JSONSerialization.jsonObject(with: Data(frames[0])) as? [String: Any])
    }

    /// A reply's id, status and error code, as plain values a thread can hand back.
    struct Summary: Sendable, CustomStringConvertible {
        var id: String
        var status: String
        var code: String?
        var description: String { "\(id) \(status) \(code ?? "")" }
    }

    static func summary(_ reply: [String: Any]) -> Summary {
        Summary(id: reply["id"] as? String ?? "", status: reply["status"] as? String ?? "",
                code: (reply["body"] as? [String: Any])?["code"] as? String)
    }

    /// One message of 200,000 empty frames: refused as a whole (it once came back `ok` with 200,000
    /// attachments), with its frames dropped as they came.
    @Test func aMessageOfManyTinyFramesIsRefusedWithBoundedMemory() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let client = try await Self.rawApp(harness, "frames")
        try await Self.expectBoundedGrowth(harness, "200,000 empty frames in one message") {
            let (reply, after) = try await onOwnThread {
                // Sent as they are sealed: sealing them all first kept a starved test thread silent for
                // longer than the picker's heartbeat timeout, and the picker rightly closed the connection.
                try client.write(client.sealed(Array(#"{"v":1,"id":"many","op":"service.ping","body":{}}"#.utf8), isMore: true))
                let count = 200_000
                var batch: [UInt8] = []
                batch.reserveCapacity(1 << 16)
                for index in 0..<count {
                    batch += client.sealed([], isMore: index < count - 1)
                    if batch.count >= 1 << 16 || index == count - 1 {
                        try client.write(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                let reply = try Self.reply(client)
                try client.write(client.request(id: "after", op: "service.ping"))
                return (Self.summary(reply), Self.summary(try Self.reply(client)))
            }
            #expect(reply.id == "many")
            #expect(reply.code == "badRequest", "\(reply)")
            #expect(after.status == "ok")
        }
    }

    /// Every write stops one byte into the next frame: the picker holds at most a frame's worth,
    /// not everything the client ever sent.
    @Test func aClientThatAlwaysHoldsBackOneByteDoesNotGrowThePicker() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let client = try await Self.rawApp(harness, "holdback")
        try await Self.expectBoundedGrowth(harness, "128 MiB sent one byte short of each frame") {
            let mismatches = try await onOwnThread {
                let attachment = [UInt8](repeating: 0x42, count: 256 << 10)
                var carried: [UInt8] = []
                var mismatches: [String] = []
                for index in 0..<512 {
                    let request = carried + client.request(id: "r\(index)", op: "service.ping", attachments: [attachment])
                    // All but the first byte of the next request waits for the next round.
                    let next = client.request(id: "x\(index)", op: "service.ping")
                    try client.write(request + [next[0]])
                    carried = Array(next.dropFirst())
                    // Requests are handled at once, so their replies may come in either order.
                    let expected: Set<String> = index == 0 ? ["r0"] : ["r\(index)", "x\(index - 1)"]
                    var answered: Set<String> = []
                    for _ in expected { answered.insert(Self.summary(try Self.reply(client)).id) }
                    if answered != expected { mismatches.append("round \(index): \(answered.sorted())") }
                }
                return mismatches
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        }
    }

    /// 200 PINGs with 1 MiB contexts from a client that reads nothing: each PONG echoes at most 16
    /// bytes, and none piles up while the client does not read.
    @Test func largePingContextsFromAClientThatNeverReadsAreNotHeld() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let client = try await Self.rawApp(harness, "pinger")
        try await Self.expectBoundedGrowth(harness, "200 PINGs of 1 MiB from a client that reads nothing") {
            try await onOwnThread {
                let context = [UInt8](repeating: 0x50, count: 1 << 20)
                for _ in 0..<200 { try client.write(client.ping(context: context)) }
                try client.write(client.request(id: "last", op: "service.ping"))
            }
            try await Task.sleep(for: .seconds(1))
        }
        // The PONGs that were sent carry at most 16 bytes of context; the request is answered.
        let pongs = try await onOwnThread {
            var pongs: [[UInt8]] = []
            while true {
                let opened = try client.readOpened()
                if opened.isCommand {
                    pongs.append(opened.payload)
                } else if !opened.isMore {
                    return pongs
                }
            }
        }
        // The service's own heartbeat PINGs may come between them on a slow machine.
        let replies = pongs.filter { $0.starts(with: RawCurveClient.command("PONG")) }
        print("\(replies.count) PONGs came back")
        #expect(!replies.isEmpty)
        #expect(pongs.allSatisfy { $0.starts(with: RawCurveClient.command("PONG")) || $0.starts(with: RawCurveClient.command("PING")) })
        #expect(replies.allSatisfy { $0.count <= 5 + 16 })
    }

    /// An app whose handshake came while lightbox-auth was down is not refused for good: the picker
    /// closes without ERROR, libzmq connects again, and the same socket is served once auth is back.
    @Test func anAppThatConnectedWhileAuthWasDownIsServedOnceAuthReturns() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        _ = try await harness.registerApp("patient")
        let keyPair = try harness.directory.appKeyPair("patient")
        harness.auth.terminate()
        harness.auth.waitUntilExit()
        // A raw client sees the picker close without ERROR while auth is away.
        let raw = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.picker, waitingUpTo: .seconds(10))
        let refusal = await onOwnThread { Result { try raw.handshake(as: keyPair, serverKey: serverKey) } }
        switch refusal {
        case .success(let answer): Issue.record("the handshake ended with \(answer), not a closed connection")
        case .failure(let error): #expect("\(error)".contains("closed by the server"), "\(error)")
        }
        async let answer = Task {
            let app = try await harness.directory.connectToPicker(as: keyPair, timeout: .seconds(60))
            return try await app.request(.ping, Empty(), as: ServiceIdentity.self, timeout: .seconds(60)).service
        }.value
        try await Task.sleep(for: .seconds(2))
        try harness.startAuth()
        #expect(try await answer == "picker")
    }

    /// An app may hold 16 connections to a service (the default of --max-connections-per-app); the
    /// seventeenth is refused in its handshake (ERROR), and the others stay served.
    @Test func aSeventeenthConnectionOfOneAppIsRefused() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        nonisolated(unsafe) var clients = [try await Self.rawApp(harness, "greedy")]
        let keyPair = try harness.directory.appKeyPair("greedy")
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.picker, waitingUpTo: .seconds(10))
        let (answers, refused, statuses) = try await onOwnThread {
            var answers: [String] = []
            for _ in 1..<16 {
                let client = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
                answers.append(try client.handshake(as: keyPair, serverKey: serverKey))
                clients.append(client)
            }
            let seventeenth = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
            let refused = try seventeenth.handshake(as: keyPair, serverKey: serverKey)
            var statuses: [String] = []
            for (index, client) in clients.enumerated() {
                try client.write(client.request(id: "c\(index)", op: "service.ping"))
                statuses.append(Self.summary(try Self.reply(client)).status)
            }
            return (answers, refused, statuses)
        }
        #expect(answers == Array(repeating: "READY", count: 15))
        #expect(refused == "ERROR")
        #expect(statuses == Array(repeating: "ok", count: 16))
        // Another app is not affected.
        let other = try await harness.registerApp("modest")
        #expect(try await other.request(.ping, Empty(), as: ServiceIdentity.self).service == "picker")
    }

    /// 2,000 connections that never say a word: idle strangers are let go for newcomers, so a
    /// registered app still connects and pings, and the picker's descriptors stay bounded.
    @Test func twoThousandIdleStrangersDoNotKeepAnAppOut() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let keyPair = try CurveKeyPair.loadOrCreate(at: harness.directory.keys.appKeyURL("punctual"))
        _ = try await harness.registerApp("punctual")
        // The test process holds the 2,000 descriptors: its soft limit is raised to its hard one.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let count = min(2_000, Int(limit.rlim_cur) - 256)
        let endpoint = harness.directory.pickerEndpoint
        let idle = try await onOwnThread { try (0..<count).map { _ in try RawCurveClient(endpoint: endpoint) } }
        let start = ContinuousClock.now
        let app = try await harness.directory.connectToPicker(as: keyPair, timeout: .seconds(10))
        #expect(try await app.request(.ping, Empty(), as: ServiceIdentity.self, timeout: .seconds(10)).service == "picker")
        let elapsed = ContinuousClock.now - start
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(harness.picker.processIdentifier)/fd").count) ?? 0
        print("with \(count) idle connections: an app connected and pinged in \(elapsed); the picker holds \(descriptors) descriptors")
        #expect(descriptors < 600)
        withExtendedLifetime(idle) {}
    }

    /// A connection that sends nothing at all is closed once the time for HELLO has passed.
    @Test func aConnectionThatNeverSaysHelloIsClosed() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let silent = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
        #expect(await onOwnThread { silent.isClosedByServer() })
    }
}

/// Runs blocking work on a thread of its own and waits for it without holding a cooperative thread.
func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

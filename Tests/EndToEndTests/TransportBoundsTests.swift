import Foundation
import LightboxClient
import LightboxProtocol
@testable import LightboxTransport
import Testing

/// What a registered app can make a service hold, tried against the real lightbox-picker with a
/// CurveZMQ client that sends what libzmq never would. Each test prints the picker's growth.
@Suite(.serialized) struct TransportBoundsTests {
    static let megabyte: Int64 = 1 << 20

    /// A registered app's raw connection to the picker, past READY.
    static func rawApp(_ harness: ServiceHarness, _ id: String) async throws -> RawCurveClient {
        _ = try await harness.registerApp(id)
        let client = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.picker, waitingUpTo: .seconds(10))
        #expect(try client.handshake(as: try harness.directory.appKeyPair(id), serverKey: serverKey) == "READY")
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

    static func errorCode(_ reply: [String: Any]) -> String? {
        (reply["body"] as? [String: Any])?["code"] as? String
    }

    /// One message of 200,000 empty frames: refused as a whole (it once came back `ok` with 200,000
    /// attachments), with its frames dropped as they came.
    @Test func aMessageOfManyTinyFramesIsRefusedWithBoundedMemory() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let client = try await Self.rawApp(harness, "frames")
        try await Self.expectBoundedGrowth(harness, "200,000 empty frames in one message") {
            var bytes = client.sealed(Array(#"{"v":1,"id":"many","op":"service.ping","body":{}}"#.utf8), isMore: true)
            let count = 200_000
            bytes.reserveCapacity(count * 36)
            for index in 0..<count { bytes += client.sealed([], isMore: index < count - 1) }
            try client.write(bytes)
            let reply = try Self.reply(client)
            #expect(reply["id"] as? String == "many")
            #expect(Self.errorCode(reply) == "badRequest", "\(reply)")
            try client.write(client.request(id: "after", op: "service.ping"))
            #expect(try Self.reply(client)["status"] as? String == "ok")
        }
    }

    /// Every write stops one byte into the next frame: the picker holds at most a frame's worth,
    /// not everything the client ever sent.
    @Test func aClientThatAlwaysHoldsBackOneByteDoesNotGrowThePicker() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let client = try await Self.rawApp(harness, "holdback")
        try await Self.expectBoundedGrowth(harness, "128 MiB sent one byte short of each frame") {
            let attachment = [UInt8](repeating: 0x42, count: 256 << 10)
            var carried: [UInt8] = []
            for index in 0..<512 {
                let request = carried + client.request(id: "r\(index)", op: "service.ping", attachments: [attachment])
                // All but the first byte of the next request waits for the next round.
                let next = client.request(id: "x\(index)", op: "service.ping")
                try client.write(request + [next[0]])
                carried = Array(next.dropFirst())
                // Requests are handled at once, so their replies may come in either order.
                let expected: Set<String> = index == 0 ? ["r0"] : ["r\(index)", "x\(index - 1)"]
                var answered: Set<String> = []
                for _ in expected { answered.insert(try Self.reply(client)["id"] as? String ?? "") }
                #expect(answered == expected)
            }
        }
    }

    /// 200 PINGs with 1 MiB contexts from a client that reads nothing: each PONG echoes at most 16
    /// bytes, and none piles up while the client does not read.
    @Test func largePingContextsFromAClientThatNeverReadsAreNotHeld() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let client = try await Self.rawApp(harness, "pinger")
        try await Self.expectBoundedGrowth(harness, "200 PINGs of 1 MiB from a client that reads nothing") {
            let context = [UInt8](repeating: 0x50, count: 1 << 20)
            for _ in 0..<200 { try client.write(client.ping(context: context)) }
            try client.write(client.request(id: "last", op: "service.ping"))
            try await Task.sleep(for: .seconds(1))
        }
        // The PONGs that were sent carry at most 16 bytes of context; the request is answered.
        var pongs = 0
        while true {
            let opened = try client.readOpened()
            if opened.isCommand {
                #expect(opened.payload.starts(with: RawCurveClient.command("PONG")))
                #expect(opened.payload.count <= 5 + 16)
                pongs += 1
            } else if !opened.isMore {
                break
            }
        }
        print("\(pongs) PONGs came back")
        #expect(pongs > 0)
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
        do {
            let answer = try raw.handshake(as: keyPair, serverKey: serverKey)
            Issue.record("the handshake ended with \(answer), not a closed connection")
        } catch {
            #expect("\(error)".contains("closed by the server"), "\(error)")
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
        var clients = [try await Self.rawApp(harness, "greedy")]
        let keyPair = try harness.directory.appKeyPair("greedy")
        let serverKey = try await harness.directory.keys.publicKey(KeyDirectory.picker, waitingUpTo: .seconds(10))
        for _ in 1..<16 {
            let client = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
            #expect(try client.handshake(as: keyPair, serverKey: serverKey) == "READY")
            clients.append(client)
        }
        let seventeenth = try RawCurveClient(endpoint: harness.directory.pickerEndpoint)
        #expect(try seventeenth.handshake(as: keyPair, serverKey: serverKey) == "ERROR")
        for (index, client) in clients.enumerated() {
            try client.write(client.request(id: "c\(index)", op: "service.ping"))
            let answer = try Self.reply(client)
            #expect(answer["status"] as? String == "ok", "\(answer)")
        }
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
        var idle: [RawCurveClient] = []
        for _ in 0..<count { idle.append(try RawCurveClient(endpoint: harness.directory.pickerEndpoint)) }
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
        #expect(silent.isClosedByServer())
    }
}

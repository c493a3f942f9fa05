import Foundation
import LightboxPostgres
import Logging
import PostgresNIO
import Synchronization
import TestServers
import Testing

/// LISTEN/NOTIFY wake-ups between two pools on one database (two processes, as two pickers would
/// be), against a real server: only committed changes wake, a dropped listener says `.listening`
/// when it is back, and a reader that falls behind is told to read again rather than fed forever.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
final class PostgresWakeupsTests: Sendable {
    let server: PostgresServer
    let logger = { var logger = Logger(label: "test.wakeups"); logger.logLevel = .error; return logger }()

    init() async throws {
        server = try await PostgresServer.start()
    }

    deinit {
        server.stop()
    }

    /// A listening pool and a sending pool on one new database, running while `body` runs.
    func withPair<Result: Sendable>(
        channels: [String] = ["assets", "picks"],
        _ body: (_ wakeups: PostgresWakeups, _ sender: PostgresStorage) async throws -> Result
    ) async throws -> Result {
        let url = server.url(database: try server.createDatabase())
        let listening = PostgresStorage(location: try PostgresLocation(url: url), timeLimit: .seconds(30), logger: logger)
        let sender = PostgresStorage(location: try PostgresLocation(url: url), timeLimit: .seconds(30), logger: logger)
        let wakeups = PostgresWakeups(storage: listening, channels: channels, firstRetry: .milliseconds(50))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await listening.run() }
            group.addTask { await sender.run() }
            group.addTask { await wakeups.run() }
            defer { group.cancelAll() }
            return try await body(wakeups, sender)
        }
    }

    func send(_ channel: String, _ payload: String, from sender: PostgresStorage, thenFail: Bool = false) async throws {
        struct RolledBack: Error {}
        let logger = self.logger
        _ = try await sender.transaction("send a wake-up") { connection in
            try await PostgresWakeups.notify(channel, payload, on: connection, logger: logger)
            if thenFail { throw RolledBack() }
        }
    }

    /// What one subscriber received, read as it arrives (until `stop()`).
    final class Received: Sendable {
        private let box = Box()
        private let reading: Task<Void, Never>

        final class Box: Sendable {
            let wakeups = Mutex<[PostgresWakeups.Wakeup]>([])
        }

        init(_ stream: AsyncStream<PostgresWakeups.Wakeup>) {
            let box = box
            reading = Task { for await wakeup in stream { box.wakeups.withLock { $0.append(wakeup) } } }
        }

        var all: [PostgresWakeups.Wakeup] { box.wakeups.withLock { $0 } }

        /// What was received once there are `count` wake-ups, or after `wait`.
        func first(_ count: Int, within wait: Duration = .seconds(20)) async -> [PostgresWakeups.Wakeup] {
            let deadline = ContinuousClock.now + wait
            while all.count < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            return all
        }

        func stop() { reading.cancel() }
    }

    @Test func aCommittedChangeWakesTheOtherProcessAndARolledBackOneDoesNot() async throws {
        try await withPair { wakeups, sender in
            let received = Received(wakeups.wakeups())
            defer { received.stop() }
            #expect(await received.first(1) == [.listening], "the subscriber was not told when listening began")
            try? await send("assets", "rolled-back", from: sender, thenFail: true)
            try await send("picks", "pick-1", from: sender)
            try await send("assets", "asset-7", from: sender)
            // The rolled-back wake-up never comes: the next two are the committed ones, in commit order.
            #expect(await received.first(3) == [.listening, .notified(channel: "picks", payload: "pick-1"),
                                                .notified(channel: "assets", payload: "asset-7")])
        }
    }

    @Test func aDroppedListenerListensAgainAndSaysSo() async throws {
        try await withPair { wakeups, sender in
            let received = Received(wakeups.wakeups())
            defer { received.stop() }
            #expect(await received.first(1) == [.listening])
            // The server ends the listening backend, as a restart or a network cut would.
            let logger = self.logger
            let ended = try await sender.withConnection("end the listener") { connection in
                var ended = 0
                let query: PostgresQuery = "SELECT pg_terminate_backend(pid)::INT FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
                for try await value in try await connection.query(query, logger: logger).decode(Int.self) { ended += value }
                return ended
            }
            #expect(ended >= 1, "no listening backend was found to end")
            #expect(await received.first(2) == [.listening, .listening], "after its connection was dropped the subscriber was not told to read again")
            try await send("assets", "after-the-drop", from: sender)
            #expect(await received.first(3).last == .notified(channel: "assets", payload: "after-the-drop"))
        }
    }

    @Test func aSubscriberThatFallsBehindIsToldToReadAgainNotBufferedForever() async throws {
        try await withPair { wakeups, sender in
            let reader = Received(wakeups.wakeups())
            defer { reader.stop() }
            #expect(await reader.first(1) == [.listening])
            // A second subscriber keeps at most 4 and reads nothing while 20 arrive.
            let laggard = wakeups.wakeups(capacity: 4)
            for number in 0..<20 { try await send("assets", "asset-\(number)", from: sender) }
            #expect(await reader.first(21) == [.listening] + (0..<20).map { .notified(channel: "assets", payload: "asset-\($0)") })
            let late = Received(laggard)
            defer { late.stop() }
            try await Task.sleep(for: .milliseconds(500))
            let kept = late.all
            #expect(kept.count <= 4, "the laggard kept \(kept.count) wake-ups")
            #expect(kept.last == .listening, "the laggard was not told to read again: \(kept)")
        }
    }

    /// One listening connection serves subscribers of different channels: each gets only its own,
    /// and one that comes while listening is told at once (unless it waits for a change of its own).
    @Test func subscribersGetTheirChannelsAndALateOneIsToldListeningBegan() async throws {
        try await withPair { wakeups, sender in
            let early = Received(wakeups.wakeups(on: ["picks"]))
            defer { early.stop() }
            #expect(await early.first(1) == [.listening])
            let late = Received(wakeups.wakeups(on: ["assets"]))
            let waiter = Received(wakeups.wakeups(on: ["assets"], announcingListening: false))
            defer { late.stop(); waiter.stop() }
            #expect(await late.first(1) == [.listening], "a subscriber that came while listening was not told")
            try await send("assets", "asset-1", from: sender)
            try await send("picks", "pick-1", from: sender)
            #expect(await late.first(2) == [.listening, .notified(channel: "assets", payload: "asset-1")])
            #expect(await waiter.first(1) == [.notified(channel: "assets", payload: "asset-1")])
            #expect(await early.first(2) == [.listening, .notified(channel: "picks", payload: "pick-1")])
            try await Task.sleep(for: .milliseconds(300))
            #expect(late.all.count == 2 && waiter.all.count == 1 && early.all.count == 2, "a wake-up of another channel arrived")
        }
    }

    @Test func aLongPayloadIsRefusedWithASentence() async throws {
        try await withPair { _, sender in
            do {
                try await send("assets", String(repeating: "x", count: PostgresWakeups.maximumPayloadBytes + 1), from: sender)
                Issue.record("a payload over the limit was sent")
            } catch let error as PostgresStorageError {
                #expect(error.message.contains("identifiers only"), "\(error.message)")
            }
        }
    }
}

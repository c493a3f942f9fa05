import Foundation
import LightboxPostgres
import Logging
import Synchronization
import TestServers
import Testing
@testable import Picker

/// Two catalogs on one database, as two pickers: a write through one that adds change rows wakes
/// the other (after it commits), and one that adds none does not.
@Suite(.enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
struct PostgresChangeWakeupsTests {
    /// How many times the follower was woken.
    final class Rings: Sendable {
        let count = Mutex(0)
        var now: Int { count.withLock { $0 } }
        func ring() { count.withLock { $0 += 1 } }
    }

    @Test func aWriteThatRecordsChangesWakesTheOtherPicker() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let logger = { var logger = Logger(label: "test.wakeups"); logger.logLevel = .error; return logger }()
        // A loaded machine may take a while over the migrations; only the wake-ups are under test.
        let location = try PostgresLocation(url: server.url(database: server.createDatabase()))
        let writer = PostgresCatalogStorage(postgres: PostgresStorage(location: location, timeLimit: .seconds(300), logger: logger), logger: logger)
        let follower = PostgresCatalogStorage(postgres: PostgresStorage(location: location, timeLimit: .seconds(300), logger: logger), logger: logger)
        let rings = Rings()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await writer.run() }
            group.addTask { await follower.run() }
            defer { group.cancelAll() }
            try await writer.prepare()
            group.addTask { await follower.followChangesElsewhere { rings.ring() } }
            // The first ring is `.listening`: read the log, as changes may have been missed.
            try await Self.waitFor { rings.now >= 1 }
            let listening = rings.now

            let records = PostgresCatalogStorageTests.library(3)
            #expect(try await writer.insert(records).count == 3)
            try await Self.waitFor { rings.now > listening }
            let afterInsert = rings.now
            // What woke it is in the log already.
            #expect(try await follower.changes(after: 0, limit: 10).compactMap(\.asset) == records.map(\.identifier))

            // Inserting the same records again changes nothing and records nothing: no wake-up.
            #expect(try await writer.insert(records).isEmpty)
            try await Task.sleep(for: .milliseconds(500))
            #expect(rings.now == afterInsert)
        }
    }

    /// Waits (up to 20 s) until `condition` holds.
    static func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<400 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the wake-up never came")
    }
}

import Foundation
import LightboxPostgres
import Logging
import PostgresNIO
import TestServers
import Testing

/// Work done once among processes on one database (a derivative two pickers want at once), against a
/// real server: one claimer of many wins, the others are told who holds it, a release wakes them,
/// and a worker that died is replaced when its lease runs out.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
final class PostgresWorkClaimsTests: Sendable {
    let server: PostgresServer
    let logger = { var logger = Logger(label: "test.claims"); logger.logLevel = .error; return logger }()

    init() async throws {
        server = try await PostgresServer.start()
    }

    deinit {
        server.stop()
    }

    /// Two pools (two processes) on a new database with the claims table, running while `body` runs.
    func withTwoProcesses<Result: Sendable>(
        _ body: (_ first: PostgresStorage, _ second: PostgresStorage) async throws -> Result
    ) async throws -> Result {
        let url = server.url(database: try server.createDatabase())
        let first = PostgresStorage(location: try PostgresLocation(url: url), timeLimit: .seconds(30), logger: logger)
        let second = PostgresStorage(location: try PostgresLocation(url: url), timeLimit: .seconds(30), logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await first.run() }
            group.addTask { await second.run() }
            defer { group.cancelAll() }
            var migrator = PostgresMigrator(table: "test_migration")
            migrator.register("v1 derivative work", PostgresWorkClaims.migration(table: "derivative_work"))
            try await migrator.migrate(first)
            return try await body(first, second)
        }
    }

    @Test func oneOfManyClaimersGetsTheWorkAndTheOthersAreToldItIsBusy() async throws {
        try await withTwoProcesses { first, second in
            let claims = (0..<8).map { PostgresWorkClaims(storage: $0 % 2 == 0 ? first : second, table: "derivative_work", worker: "worker-\($0)") }
            let results = try await withThrowingTaskGroup(of: PostgresWorkClaims.Claim.self) { group in
                for claim in claims { group.addTask { try await claim.claim("thumbnail/abc/256") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 == .yours }.count == 1, "\(results)")
            #expect(results.filter { $0 != .yours }.count == 7)
            // Another key is free.
            #expect(try await claims[3].claim("thumbnail/def/256") == .yours)
        }
    }

    @Test func aReleaseWakesTheWaiterWhoThenClaimsIt() async throws {
        try await withTwoProcesses { first, second in
            let holder = PostgresWorkClaims(storage: first, table: "derivative_work", worker: "picker-1")
            let waiter = PostgresWorkClaims(storage: second, table: "derivative_work", worker: "picker-2")
            let wakeups = PostgresWakeups(storage: second, channels: [PostgresWorkClaims.releaseChannel])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await wakeups.run() }
                defer { group.cancelAll() }
                var stream = wakeups.wakeups()
                // Listening first, so the release cannot be missed.
                #expect(await PostgresWorkClaims.waitForRelease(of: "x", in: stream, upTo: .seconds(20)) == .listeningAgain)
                // As a waiter subscribes: before claiming, so it is not told again that listening began.
                stream = wakeups.wakeups(announcingListening: false)
                #expect(try await holder.claim("transcode/movie/medium") == .yours)
                #expect(try await waiter.claim("transcode/movie/medium") == .busy(worker: "picker-1"))
                async let waited = PostgresWorkClaims.waitForRelease(of: "transcode/movie/medium", in: stream, upTo: .seconds(60))
                try await Task.sleep(for: .milliseconds(100))
                try await holder.release("transcode/movie/medium")
                #expect(await waited == .released)
                #expect(try await waiter.claim("transcode/movie/medium") == .yours)
            }
        }
    }

    @Test func aWorkerThatDiedIsReplacedWhenItsLeaseRunsOut() async throws {
        try await withTwoProcesses { first, second in
            // While a lease lasts (long enough for any machine's load), others are told who holds it.
            let holder = PostgresWorkClaims(storage: first, table: "derivative_work", worker: "picker-1", lease: .seconds(600))
            let other = PostgresWorkClaims(storage: second, table: "derivative_work", worker: "picker-2")
            #expect(try await holder.claim("render/photo/1024") == .yours)
            #expect(try await holder.renew("render/photo/1024"), "the holder could not renew its own lease")
            #expect(try await other.claim("render/photo/1024") == .busy(worker: "picker-1"))

            // A holder whose short lease is not renewed (it died) is replaced once the lease ends.
            let dying = PostgresWorkClaims(storage: first, table: "derivative_work", worker: "picker-3", lease: .milliseconds(200))
            #expect(try await dying.claim("render/photo/2048") == .yours)
            try await Task.sleep(for: .seconds(1))
            #expect(try await other.claim("render/photo/2048") == .yours)
            // The old holder learns it lost the work, and its late release leaves the new claim alone.
            #expect(try await dying.renew("render/photo/2048") == false)
            try await dying.release("render/photo/2048")
            #expect(try await dying.claim("render/photo/2048") == .busy(worker: "picker-2"))
        }
    }
}

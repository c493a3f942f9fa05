import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Synchronization
import TestServers
import Testing

/// Every request is answered when the database goes away: lightbox-auth keeps its state on a
/// PostgreSQL server of this test's own, which is SIGKILLed (postmaster and backends) three times
/// while owners' `owner.access.set` requests stream in, one stream per app, and started again.
/// Every request gets a reply from auth — its result, or `timeout`/`internal` with a sentence within
/// the bound a database use may take (docs/PROTOCOL.md) — never the client's own "No answer", and
/// every acknowledged change is kept.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
struct DatabaseLossTests {
    /// Longer than auth's bound on one database use (10 s), so a reply that never comes is told
    /// from a late one.
    static let patience: Duration = .seconds(30)
    static let kills = 3

    struct Outcome: Sendable {
        var app: String
        var request: SetAccessRequest
        var reply: Result<SetAccessResponse, LightboxError>
        var took: Duration
    }

    /// What the streams did, shared with the test.
    final class Record: Sendable {
        private struct State {
            var outcomes: [Outcome] = []
            var acknowledged = 0
            /// Who waits for how many acknowledgements.
            var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())
        let running = Mutex(true)

        var outcomes: [Outcome] { state.withLock { $0.outcomes } }
        var acknowledged: Int { state.withLock { $0.acknowledged } }

        /// Keeps `outcome`, and wakes whoever waits for the acknowledgements reached.
        func add(_ outcome: Outcome) {
            let woken = state.withLock { state in
                state.outcomes.append(outcome)
                if case .success = outcome.reply { state.acknowledged += 1 }
                let acknowledged = state.acknowledged
                defer { state.waiters.removeAll { $0.count <= acknowledged } }
                return state.waiters.filter { $0.count <= acknowledged }.map(\.continuation)
            }
            woken.forEach { $0.resume() }
        }

        /// Returns once `count` requests have been acknowledged.
        func waitUntilAcknowledged(_ count: Int) async {
            await withCheckedContinuation { continuation in
                let reached = state.withLock { state in
                    if state.acknowledged >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if reached { continuation.resume() }
            }
        }
    }

    @Test func requestsInFlightWhenPostgreSQLIsKilledAreAllAnswered() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let harness = try await ServiceHarness.start(importFolders: [], authOptions: ["--database", server.url(database: try server.createDatabase())])
        defer { harness.stop() }
        let apps = (0..<5).map { "steady-\($0)" }
        for app in apps { _ = try await harness.registerApp(app) }
        let settings = try await harness.settings(timeout: Self.patience)
        let record = Record()

        let settingsCycle: [SetAccessRequest.ReadWrite] = [.full, .limited, .none, .limited]
        let streams = Task { [settings] in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, app) in apps.enumerated() {
                    group.addTask {
                        var index = number
                        while record.running.withLock({ $0 }) {
                            let setting = settingsCycle[index % settingsCycle.count]
                            let selection = setting == .limited ? (0...(index % 7)).map { "ASSET-\(index * 10 + $0)/L0/001" } : nil
                            let request = SetAccessRequest(app: app, readWrite: setting, selection: selection)
                            // The same change again until it is acknowledged: one refused with
                            // `timeout` may or may not have been committed.
                            while true {
                                let start = ContinuousClock.now
                                let reply: Result<SetAccessResponse, LightboxError>
                                do { reply = .success(try await settings.setAccess(request)) } catch let error as LightboxError { reply = .failure(error) }
                                record.add(Outcome(app: app, request: request, reply: reply, took: ContinuousClock.now - start))
                                if case .success = reply { break }
                            }
                            index += apps.count
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        for _ in 0..<Self.kills {
            // Kill while requests are in flight, once a few more have been acknowledged.
            await record.waitUntilAcknowledged(record.acknowledged + 20)
            server.killWithBackends()
            try await server.restart()
        }
        await record.waitUntilAcknowledged(record.acknowledged + 20)
        record.running.withLock { $0 = false }
        try await streams.value

        let all = record.outcomes
        let refused: [(outcome: Outcome, error: LightboxError)] = all.compactMap { outcome in
            if case .failure(let error) = outcome.reply { (outcome, error) } else { nil }
        }
        let unanswered = refused.filter { $0.error.message.hasPrefix("No answer from") }
        let codes = Dictionary(grouping: refused, by: { $0.error.code.rawValue }).mapValues { $0.count }
        let slowest = refused.map { $0.outcome.took }.max() ?? .zero
        print("DatabaseLossTests: \(Self.kills) kills of PostgreSQL; \(all.count) requests, \(all.count - refused.count) acknowledged, "
              + "refused \(codes), the slowest refusal after \(slowest); \(unanswered.count) unanswered")
        #expect(unanswered.isEmpty, "requests auth never answered: \(unanswered.map { "\($0.outcome.app) after \($0.outcome.took)" })")
        let expected: Set<ErrorCode> = [.timeout, .internal]
        #expect(refused.allSatisfy { expected.contains($0.error.code) && !$0.error.message.isEmpty },
                "refusals other than timeout or internal: \(refused.map { "\($0.error.code): \($0.error.message)" })")
        #expect(!refused.isEmpty, "no request was in flight at a kill: the test did not test anything")

        // Nothing acknowledged is lost: each app is as its last change left it, with every
        // acknowledged change in its change log.
        let access = try await settings.apps()
        for app in apps {
            let changes = all.filter { $0.app == app }
            let tokens = Set(changes.compactMap { try? $0.reply.get().token })
            let last = try #require(changes.last { (try? $0.reply.get()) != nil })
            let now = try #require(access.first { $0.app == app })
            #expect(now.readWrite == (try last.reply.get()).access.readWrite, "\(app)")
            if last.request.readWrite == .limited { #expect(now.selectionCount == last.request.selection?.count, "\(app)") }
            let library = try await harness.library(for: app)
            let logged = Set(try await library.changes(after: 0).changes.map(\.token))
            #expect(tokens.subtracting(logged).isEmpty, "\(app): acknowledged changes missing from the change log")
        }
    }
}

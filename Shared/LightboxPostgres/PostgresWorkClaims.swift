import Foundation
import LightboxProtocol
import Logging
import PostgresNIO

/// Work several processes on one database may each be asked for but that should be done once — a
/// derivative (thumbnail, compatible JPEG, transcode) two pickers need at the same time: a row per
/// piece of work, claimed with `SELECT … FOR UPDATE SKIP LOCKED` so that claimers never wait on each
/// other's claim, held by a lease the worker renews while it works. The others wait for the
/// release's wake-up (or the lease's end, if the worker died) and then look for the result.
///
/// A claim says nothing about whether the result exists: a caller first looks for it (in the
/// object store), claims only when it is missing, and looks again after every wait.
public struct PostgresWorkClaims: Sendable {
    public enum Claim: Sendable, Equatable {
        /// Do the work, renew the lease while it lasts, then `release`.
        case yours
        /// Another worker holds it (named when known); wait, then look for the result again.
        case busy(worker: String?)
    }

    /// The channel releases are announced on (payload: the work's key).
    public static let releaseChannel = "work_released"

    public let table: String
    /// This process, as other processes' logs and `busy` name it.
    public let worker: String
    public let lease: Duration
    private let storage: PostgresStorage

    /// Claims in `table` (a plain SQL identifier made by `migration(table:)`), by `worker`, each
    /// lasting `lease` unless renewed.
    public init(storage: PostgresStorage, table: String, worker: String = Self.thisProcess, lease: Duration = .seconds(60)) {
        precondition(PlainIdentifier.isValid(table), "not a plain SQL identifier: \(table)")
        self.storage = storage
        self.table = table
        self.worker = worker
        self.lease = lease
    }

    /// `host:pid`.
    public static var thisProcess: String { "\(ProcessInfo.processInfo.hostName):\(getpid())" }

    /// The statements making `table`, for the service's migrations.
    public static func migration(table: String) -> [String] {
        precondition(PlainIdentifier.isValid(table), "not a plain SQL identifier: \(table)")
        return ["CREATE TABLE \(table) (key TEXT PRIMARY KEY, worker TEXT, leaseUntil TIMESTAMPTZ)"]
    }

    /// Claims `key` unless a live lease holds it.
    public func claim(_ key: String) async throws(PostgresStorageError) -> Claim {
        let (table, worker, milliseconds, logger) = (table, worker, lease.milliseconds, storage.logger)
        return try await storage.transaction("claim work") { connection in
            try await connection.query(
                try PostgresQuery(unsafeSQL: "INSERT INTO \(table) (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", binds: [key]), logger: logger)
            // Skipping a locked row: another process is claiming this very key right now.
            let rows = try await connection.query(
                try PostgresQuery(unsafeSQL: "SELECT worker, leaseUntil IS NOT NULL AND leaseUntil > now() FROM \(table) WHERE key = $1 FOR UPDATE SKIP LOCKED",
                              binds: [key]), logger: logger)
            var holder: (worker: String?, live: Bool)?
            for try await (holding, live) in rows.decode((String?, Bool).self) { holder = (holding, live) }
            guard let holder else { return .busy(worker: nil) }
            if holder.live, holder.worker != worker { return .busy(worker: holder.worker) }
            try await connection.query(
                try PostgresQuery(unsafeSQL: "UPDATE \(table) SET worker = $2, leaseUntil = now() + $3 * interval '1 millisecond' WHERE key = $1",
                              binds: [key, worker, milliseconds]), logger: logger)
            return .yours
        }
    }

    /// Extends the lease on `key` by another `lease`; false when it is no longer this worker's (it
    /// ran out and another claimed it: stop, the other will finish).
    public func renew(_ key: String) async throws(PostgresStorageError) -> Bool {
        let (table, worker, milliseconds, logger) = (table, worker, lease.milliseconds, storage.logger)
        return try await storage.transaction("renew a claim") { connection in
            let rows = try await connection.query(
                try PostgresQuery(unsafeSQL: "UPDATE \(table) SET leaseUntil = now() + $3 * interval '1 millisecond' WHERE key = $1 AND worker = $2 RETURNING key",
                              binds: [key, worker, milliseconds]), logger: logger)
            var renewed = false
            for try await _ in rows { renewed = true }
            return renewed
        }
    }

    /// Gives up `key` — done or failed — and wakes those waiting for it.
    public func release(_ key: String) async throws(PostgresStorageError) {
        let (table, worker, logger) = (table, worker, storage.logger)
        try await storage.transaction("release a claim") { connection in
            try await connection.query(
                try PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE key = $1 AND worker = $2", binds: [key, worker]), logger: logger)
            try await PostgresWakeups.notify(Self.releaseChannel, key, on: connection, logger: logger)
        }
    }

    /// How a wait for a release ended.
    public enum WaitEnd: Sendable, Equatable {
        case released
        /// Listening began again: a release may have been missed.
        case listeningAgain
        /// Nothing came within the wait: the holder may have died, leaving its lease to run out.
        case waitedLongest
    }

    /// Waits until `key` is released (a wake-up from `wakeups`, which must listen on
    /// `releaseChannel`) or `longest` has passed. Whichever it was, look for the result again, then
    /// claim again.
    @discardableResult
    public static func waitForRelease(of key: String, in wakeups: AsyncStream<PostgresWakeups.Wakeup>, upTo longest: Duration) async -> WaitEnd {
        await withTaskGroup(of: WaitEnd?.self) { group in
            group.addTask {
                for await wakeup in wakeups {
                    switch wakeup {
                    case .listening: return .listeningAgain
                    case .notified(releaseChannel, key): return .released
                    case .notified: continue
                    }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: longest)
                return .waitedLongest
            }
            defer { group.cancelAll() }
            while let end = await group.next() {
                if let end { return end }
            }
            return .waitedLongest
        }
    }
}

extension PostgresQuery {
    /// A statement whose text is ours (table names checked as plain identifiers) with `binds` as $1….
    init(unsafeSQL sql: String, binds values: [any PostgresEncodable & Sendable]) throws {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value, context: .default) }
        self.init(unsafeSQL: sql, binds: bindings)
    }
}

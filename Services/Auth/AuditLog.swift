import Dispatch
import Foundation
import GRDB
import LightboxProtocol
import LightboxTransport
import LightboxStorage
import Metrics
import Synchronization

enum AuditMetrics {
    static let batches = Counter(label: "lightbox_audit_batches_total")
    static let dropped = Counter(label: "lightbox_audit_entries_dropped_total")
}

/// The owner's one audit trail: every decision and settings change the auth service makes, and
/// every read the picker reports (`auth.audit.record`). Identical entries gathered for one write
/// are one line with a count (`AuditBatch`), so a flood of one app's calls is a few rows a batch.
///
/// Group commit: `record` only appends to a buffer and returns; a serial queue writes what has
/// gathered every few milliseconds in one transaction without an fsync of its own (the next
/// durable commit of a grant or setting, or the WAL checkpoint, puts it on disk; a crash of the
/// process alone loses none that were written). The owner's changes are not buffered: their lines
/// are written in the change's own durable transaction (`insert(_:_:)`).
public final class AuditLog: Sendable {
    let database: DatabasePool
    /// How long entries gather before they are written together.
    static let batchInterval: DispatchTimeInterval = .milliseconds(5)
    /// Lines waiting beyond this many (a disk that cannot keep up) are dropped, oldest first, and
    /// the entries they stood for counted.
    static let maximumWaiting = 100_000

    private struct Buffer {
        var batch = AuditBatch()
        var isScheduled = false
        var dropped = 0
    }

    private let buffer = Mutex(Buffer())
    /// Writes run here, one at a time, in the order entries arrived, never on Swift concurrency's threads.
    private let queue = DispatchQueue(label: "lightbox.auth.audit")

    init(database: DatabasePool) {
        self.database = database
    }

    func record(app: String, operation: AuditOperation, assetCount: Int = 0, outcome: AuditOutcome, at: Date = Date(), asset: String? = nil) {
        record([AuditEntry(app: app, operation: operation, assetCount: assetCount, outcome: outcome, at: at, asset: asset)])
    }

    func record(_ entries: [AuditEntry]) {
        guard !entries.isEmpty else { return }
        let schedule = buffer.withLock { buffer -> Bool in
            buffer.batch.append(contentsOf: entries)
            if buffer.batch.count > Self.maximumWaiting {
                buffer.dropped += buffer.batch.removeFirst(buffer.batch.count - Self.maximumWaiting)
            }
            defer { buffer.isScheduled = true }
            return !buffer.isScheduled
        }
        if schedule { queue.asyncAfter(deadline: .now() + Self.batchInterval) { self.writeWaiting() } }
    }

    /// Returns once everything recorded so far is written (owner reads and shutdown call it).
    func flush() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.writeWaiting()
                continuation.resume()
            }
        }
    }

    /// Runs on `queue` only.
    private func writeWaiting() {
        let (entries, dropped) = buffer.withLock { buffer in
            defer { buffer = Buffer() }
            return (buffer.batch.entries, buffer.dropped)
        }
        if dropped > 0 {
            AuditMetrics.dropped.increment(by: dropped)
        }
        guard !entries.isEmpty else { return }
        do {
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
                try db.inTransaction {
                    try Self.insert(entries, db)
                    return .commit
                }
            }
            AuditMetrics.batches.increment()
        } catch {
            // The decisions stand; a lost audit batch must not turn answers into failures.
            AuditMetrics.dropped.increment(by: entries.reduce(0) { $0 + ($1.times ?? 1) })
        }
    }

    /// Writes `entries` in the caller's transaction. The owner's own changes (settings, prompt
    /// answers, expansions) are written this way, in the transaction that commits the change, so an
    /// acknowledged change always has its line, even after a crash; reads take the group commit.
    static func insert(_ entries: [AuditEntry], _ db: Database) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO audit (app, operation, assetCount, outcome, at, bytes, asset, times, lastAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for entry in entries {
            // The date as GRDB would store it, formatted without a DateFormatter (`StorageDate`).
            try insert.execute(arguments: [entry.app, entry.operation, entry.assetCount, entry.outcome, StorageDate.text(entry.at),
                                           entry.bytes, entry.asset, entry.times ?? 1, entry.lastAt.map(StorageDate.text)])
        }
    }

    /// One page, newest first. `operation` matches a whole name or a family, as
    /// `AuditOperation.matches(_:)` says (`pick` finds `pick:opened` and `pick:answered`).
    func entries(_ request: AuditRequest, maximumLimit: Int = 10_000) async throws -> AuditResponse {
        await flush()
        let limit = min(max(request.limit ?? 200, 1), maximumLimit)
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let app = request.app {
            conditions.append("app = ?")
            arguments += [app]
        }
        if let operation = request.operation {
            // A range instead of LIKE keeps the index usable; ";" is the character after ":".
            conditions.append("(operation = ? OR (operation >= ? AND operation < ?))")
            arguments += [operation, operation + ":", operation + ";"]
        }
        if let since = request.since {
            conditions.append("at >= ?")
            arguments += [since]
        }
        if let until = request.until {
            conditions.append("at < ?")
            arguments += [until]
        }
        if let before = request.before {
            conditions.append("id < ?")
            arguments += [before]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [limit + 1]
        let query = arguments
        let found = try await database.detachedRead { db in
            // A statement per combination of filters, compiled once.
            try AuditEntry.fetchAll(positionally: db.cachedStatement(sql: "\(Self.selectEntries) \(filter) ORDER BY id DESC LIMIT ?"),
                                    arguments: query)
        }
        let entries = Array(found.prefix(limit))
        return AuditResponse(entries: entries, next: found.count > limit ? entries.last?.id : nil)
    }

    private static let selectEntries = "SELECT \(AuditEntry.selectList) FROM audit"

    /// A stored count as the wire spells it: absent for a line that happened once.
    static func times(_ stored: Int) -> Int? { stored > 1 ? stored : nil }
}

/// The lines the operation table writes (app reads, refusals) are group-committed with the rest.
extension AuditLog: OperationAuditor {
    public func record(_ entry: AuditEntry) { record([entry]) }
}

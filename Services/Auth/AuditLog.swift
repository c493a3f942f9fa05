import Foundation
import LightboxProtocol
import LightboxTransport
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
/// Group commit: `record` only appends to a buffer and returns; the writer (`run`, a child task of
/// the service) writes what has gathered every few milliseconds in one transaction that does not
/// wait for the disk (`AuthStorage.appendAudit`). The owner's changes are not buffered: their lines
/// are written in the change's own durable transaction.
public final class AuditLog: Sendable {
    let storage: any AuthStorage
    /// How long entries gather before they are written together.
    static let batchInterval: Duration = .milliseconds(5)
    /// Lines waiting beyond this many (a disk that cannot keep up) are dropped, oldest first, and
    /// the entries they stood for counted.
    static let maximumWaiting = 100_000

    private struct Buffer {
        var batch = AuditBatch()
        var isScheduled = false
        var dropped = 0
    }

    private let buffer = Mutex(Buffer())
    /// Tells the writer that lines are waiting.
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Writes run one at a time, in the order their lines were taken.
    private let writes = SerialGate()

    init(storage: any AuthStorage) {
        self.storage = storage
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
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
        if schedule { wake.yield() }
    }

    /// Writes what gathers, a batch every `batchInterval`, until cancelled (what is left then is
    /// written by `flush`).
    func run() async {
        for await _ in wakes {
            try? await Task.sleep(for: Self.batchInterval)
            await writeWaiting()
        }
    }

    /// Returns once everything recorded so far is written (owner reads and shutdown call it).
    func flush() async {
        await writeWaiting()
    }

    private func writeWaiting() async {
        await writes.run {
            let (entries, dropped) = buffer.withLock { buffer in
                defer { buffer = Buffer() }
                return (buffer.batch.entries, buffer.dropped)
            }
            if dropped > 0 {
                AuditMetrics.dropped.increment(by: dropped)
            }
            guard !entries.isEmpty else { return }
            do {
                try await storage.appendAudit(entries)
                AuditMetrics.batches.increment()
            } catch {
                // The decisions stand; a lost audit batch must not turn answers into failures.
                AuditMetrics.dropped.increment(by: entries.reduce(0) { $0 + ($1.times ?? 1) })
            }
        }
    }

    /// One page, newest first. `operation` matches a whole name or a family, as
    /// `AuditOperation.matches(_:)` says (`pick` finds `pick:opened` and `pick:answered`).
    func entries(_ request: AuditRequest, maximumLimit: Int = 10_000) async throws -> AuditResponse {
        await flush()
        let limit = min(max(request.limit ?? 200, 1), maximumLimit)
        let found = try await storage.auditEntries(request, limit: limit + 1)
        let entries = Array(found.prefix(limit))
        return AuditResponse(entries: entries, next: found.count > limit ? entries.last?.id : nil)
    }

    /// The privacy report's numbers for one app (`owner.audit.summary`).
    func summary(_ request: AuditSummaryRequest) async throws -> AuditSummary {
        await flush()
        let recentLimit = min(max(request.recentLimit ?? 12, 1), AuditSummaryRequest.maximumRecent)
        return try await storage.auditSummary(app: request.app, since: request.since, recentLimit: recentLimit)
    }

    /// A stored count as the wire spells it: absent for a line that happened once.
    static func times(_ stored: Int) -> Int? { stored > 1 ? stored : nil }
}

/// The lines the operation table writes (app reads, refusals) are group-committed with the rest.
extension AuditLog: OperationAuditor {
    public func record(_ entry: AuditEntry) { record([entry]) }
}

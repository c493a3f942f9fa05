import Foundation
import LightboxProtocol
import LightboxTransport
import Synchronization

/// Sends every read the picker serves to lightbox-auth's audit trail (`auth.audit.record`), in
/// batches, fire-and-forget: recording never waits on auth or on a disk. The app is always the
/// CURVE identity the picker saw for the request. Repeats within a batch travel as one line
/// (`AuditBatch`): a busy app's thousandth identical fetch costs a counter, not a report.
final class AuditReporter: Sendable {
    typealias Send = @Sendable ([AuditEntry]) -> Void

    /// A batch leaves when it holds this many distinct entries, or this long after its first entry.
    static let batchSize = 64
    static let batchDelay: Duration = .milliseconds(20)
    /// Distinct lines kept while auth is not yet connected; older ones are dropped beyond it.
    static let maximumBacklog = 10_000

    private struct State {
        var send: Send?
        var buffer = AuditBatch()
        var flushScheduled = false
        var dropped = 0
    }

    private let state: Mutex<State>

    init(send: Send? = nil) {
        state = Mutex(State(send: send))
    }

    /// Where batches go from now on (the DEALER to lightbox-auth); sends whatever waited for it.
    func attach(_ send: @escaping Send) {
        state.withLock { $0.send = send }
        flush()
    }

    func record(app: String, operation: AuditOperation, assetCount: Int = 0, outcome: AuditOutcome, bytes: Int64? = nil, asset: String? = nil) {
        record(AuditEntry(app: app, operation: operation, assetCount: assetCount, outcome: outcome, at: Date(), bytes: bytes, asset: asset))
    }

    func record(_ entry: AuditEntry) {
        let (flushNow, schedule) = state.withLock { state -> (Bool, Bool) in
            state.buffer.append(entry)
            if state.buffer.count > Self.maximumBacklog {
                state.dropped += state.buffer.removeFirst(state.buffer.count - Self.maximumBacklog)
            }
            if state.buffer.count >= Self.batchSize { return (true, false) }
            guard !state.flushScheduled else { return (false, false) }
            state.flushScheduled = true
            return (false, true)
        }
        if flushNow {
            flush()
        } else if schedule {
            Task { [self] in
                try? await Task.sleep(for: Self.batchDelay)
                flush()
            }
        }
    }

    /// Sends what is buffered now (also at shutdown).
    func flush() {
        let batch: ([AuditEntry], Send)? = state.withLock { state in
            state.flushScheduled = false
            guard let send = state.send, !state.buffer.isEmpty else { return nil }
            defer { state.buffer = AuditBatch() }
            return (state.buffer.entries, send)
        }
        guard let (entries, send) = batch else { return }
        for start in stride(from: 0, to: entries.count, by: Self.batchSize) {
            send(Array(entries[start..<min(start + Self.batchSize, entries.count)]))
        }
    }

    /// Entries dropped because auth was never reached while they waited.
    var dropped: Int { state.withLock { $0.dropped } }
}

extension AuditReporter: OperationAuditor {}

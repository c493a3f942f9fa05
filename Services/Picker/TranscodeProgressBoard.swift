import Foundation
import LightboxProtocol
import Synchronization

/// The latest progress of each derivative being made, so that every request waiting for it (the
/// one that started it, others that joined it in the cache, others queued for a transcode slot)
/// can report something, and the client's idle timeout does not end a request that is only
/// waiting its turn.
final class TranscodeProgressBoard: Sendable {
    static let shared = TranscodeProgressBoard()
    /// A waiting request reports at least this often.
    let heartbeat: Duration

    init(heartbeat: Duration = .seconds(2)) {
        self.heartbeat = heartbeat
    }

    private let latest = Mutex<[String: TranscodeProgress]>([:])

    func post(_ progress: TranscodeProgress, for key: String) {
        latest.withLock { $0[key] = progress }
    }

    func progress(of key: String) -> TranscodeProgress? {
        latest.withLock { $0[key] }
    }

    func remove(_ key: String) {
        _ = latest.withLock { $0.removeValue(forKey: key) }
    }

    /// Runs `work` (which may report through the reporter it is given), and meanwhile sends the
    /// board's progress for `key` (or `waiting`) whenever nothing was sent for a heartbeat.
    func reporting<T: Sendable>(
        _ key: String, waiting: TranscodeProgress, to send: @escaping @Sendable (TranscodeProgress) -> Void,
        _ work: (_ report: @escaping @Sendable (TranscodeProgress) -> Void) async throws -> T
    ) async throws -> T {
        let lastSent = Mutex(ContinuousClock.now)
        let report: @Sendable (TranscodeProgress) -> Void = { [self] progress in
            post(progress, for: key)
            lastSent.withLock { $0 = .now }
            send(progress)
        }
        let heartbeat = self.heartbeat
        let ticker = Task { [self] in
            while true {
                try await Task.sleep(for: heartbeat / 4)
                let isDue = lastSent.withLock { sent in
                    guard ContinuousClock.now - sent >= heartbeat else { return false }
                    sent = .now
                    return true
                }
                if isDue { send(progress(of: key) ?? waiting) }
            }
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await work(report))
        } catch {
            result = .failure(error)
        }
        // No progress may follow the reply that comes next.
        ticker.cancel()
        _ = await ticker.result
        return try result.get()
    }
}

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
        let lastSent = LastSent()
        let report: @Sendable (TranscodeProgress) -> Void = { [self] progress in
            post(progress, for: key)
            lastSent.instant.withLock { $0 = .now }
            send(progress)
        }
        let heartbeat = self.heartbeat
        // The heartbeat is a child task of the work it reports on.
        let result = await withTaskGroup(of: Void.self) { group -> Result<T, any Error> in
            group.addTask { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat / 4)
                    let isDue = !Task.isCancelled && lastSent.instant.withLock { sent in
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
            // No progress may follow the reply that comes next: the group waits for the heartbeat to end.
            group.cancelAll()
            return result
        }
        return try result.get()
    }
}

/// When a request last sent progress, shared by its reporter and its heartbeat.
private final class LastSent: Sendable {
    let instant = Mutex(ContinuousClock.now)
}

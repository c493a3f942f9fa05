import Foundation
import LightboxProtocol
import Synchronization
import Testing
@testable import Picker

/// A request that only waits (for a transcode slot, or for another request making the same
/// derivative) still reports, so the client's idle timeout does not end it; and nothing is
/// reported after the work is done.
@Suite struct TranscodeProgressBoardTests {
    @Test func aWaitingRequestHearsTheBoardOrAHeartbeatAndNothingAfterwards() async throws {
        let board = TranscodeProgressBoard(heartbeat: .milliseconds(200))
        let sent = Mutex<[TranscodeProgress]>([])
        let waiting = TranscodeProgress(completed: 0, total: 8)
        let made = TranscodeProgress(completed: 3, total: 8)
        /// Waits (up to 30 s, however loaded the machine) until `sent` satisfies `condition`.
        @Sendable func until(_ condition: @escaping @Sendable ([TranscodeProgress]) -> Bool) async throws {
            for _ in 0..<600 where !sent.withLock({ condition($0) }) {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let value = try await board.reporting("k", waiting: waiting, to: { progress in sent.withLock { $0.append(progress) } }) { _ in
            // Someone else makes the derivative: this request only waits, and hears a heartbeat...
            try await until { !$0.isEmpty }
            // ...then what the maker posted.
            board.post(made, for: "k")
            try await until { $0.contains(made) }
            return 42
        }
        #expect(value == 42)
        let atEnd = sent.withLock { $0 }
        #expect(atEnd.first == waiting, "\(atEnd)")
        #expect(atEnd.last == made, "\(atEnd)")
        try await Task.sleep(for: board.heartbeat * 4)
        #expect(sent.withLock { $0 } == atEnd, "progress after the work was done")
    }

    @Test func directReportsAreSentAndPostedAndErrorsPassThrough() async throws {
        let board = TranscodeProgressBoard(heartbeat: .milliseconds(200))
        let sent = Mutex<[TranscodeProgress]>([])
        await #expect(throws: CancellationError.self) {
            try await board.reporting("k", waiting: TranscodeProgress(completed: 0, total: 2), to: { p in sent.withLock { $0.append(p) } }) { report in
                report(TranscodeProgress(completed: 1, total: 2))
                throw CancellationError()
            }
        }
        #expect(sent.withLock { $0 } == [TranscodeProgress(completed: 1, total: 2)])
        #expect(board.progress(of: "k") == TranscodeProgress(completed: 1, total: 2))
    }
}

import Foundation
import Media
import Synchronization
import Testing

/// The ffmpeg child process and its budgets: a deadline that kills, a memory limit that stops it,
/// and the slots that bound how many run at once.
@Suite struct FFmpegProcessTests {
    /// `-re` makes ffmpeg read its (generated) input at real speed: 60 s of it cannot finish in 1 s.
    @Test func theTimeLimitKillsAChildThatRunsTooLong() async throws {
        let started = ContinuousClock.now
        let error = await #expect(throws: MediaError.self) {
            try await FFmpegProcess.run(["-nostdin", "-re", "-f", "lavfi", "-i", "testsrc=duration=60:size=64x64:rate=10", "-f", "null", "-"],
                                        budget: FFmpegProcess.Budget(timeLimit: .seconds(1)))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("budget") == true)
        print("ffmpeg killed after \(ContinuousClock.now - started) (budget 1 s)")
    }

    /// ffmpeg and its libraries map about 300 MiB before doing anything; a 1080p x264 encode needs
    /// more than the 400 MiB left here, so the encoder's allocations fail and ffmpeg gives up.
    @Test func theMemoryLimitStopsAChildThatNeedsMore() async throws {
        let error = await #expect(throws: MediaError.self) {
            try await FFmpegProcess.run(["-nostdin", "-f", "lavfi", "-i", "testsrc=duration=1:size=1920x1080:rate=10",
                                         "-c:v", "libx264", "-threads", "1", "-f", "null", "-"],
                                        budget: FFmpegProcess.Budget(timeLimit: .seconds(60), addressSpace: 400 << 20))
        }
        #expect(error?.code == .toolFailed)
        #expect(error?.message.contains("loading shared libraries") == false, "\(error?.message ?? "")")
    }

    @Test func aMissingInputFailsWithFFmpegsReason() async throws {
        let error = await #expect(throws: MediaError.self) {
            try await FFmpegProcess.run(["-nostdin", "-loglevel", "error", "-i", SampleFiles.library("sunset.png").path + ".missing",
                                         "-f", "null", "-"], budget: FFmpegProcess.Budget(timeLimit: .seconds(30)))
        }
        #expect(error?.code == .toolFailed)
        #expect(error?.message.contains("No such file") == true, "\(error?.message ?? "")")
    }

    @Test func progressLinesArriveAsTheyAreWritten() async throws {
        let lines = Mutex<[String]>([])
        try await FFmpegProcess.run(["-nostdin", "-f", "lavfi", "-i", "testsrc=duration=2:size=64x64:rate=10", "-progress", "pipe:1",
                                     "-nostats", "-f", "null", "-"], budget: FFmpegProcess.Budget(timeLimit: .seconds(30))) { line in
            lines.withLock { $0.append(line) }
        }
        let seen = lines.withLock { $0 }
        #expect(seen.contains("progress=end"))
        #expect(seen.contains { $0.hasPrefix("out_time_us=") })
    }

    @Test func slotsRunAtMostTheirLimitAtOnce() async throws {
        let slots = TranscodeSlots(limit: 2)
        let counts = Concurrency()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await slots.run {
                        await counts.enter()
                        // Hold the slot until two have been in at once (bounded, for a broken limit of 1).
                        for _ in 0..<600 where await counts.most < 2 { try await Task.sleep(for: .milliseconds(50)) }
                        try await Task.sleep(for: .milliseconds(20))
                        await counts.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await counts.most == 2)
        #expect(await counts.running == 0)
    }

    actor Concurrency {
        var running = 0
        var most = 0
        func enter() { running += 1; most = max(most, running) }
        func leave() { running -= 1 }
    }

    @Test func theBudgetGrowsWithTheMovieAndIsCapped() {
        #expect(FFmpegProcess.Budget.forMovie(lasting: 10).timeLimit == .seconds(70))
        #expect(FFmpegProcess.Budget.forMovie(lasting: 100_000).timeLimit == .seconds(FFmpegProcess.Budget.maximumSeconds))
        #expect(FFmpegProcess.Budget.forMovie(lasting: nil).timeLimit == .seconds(FFmpegProcess.Budget.maximumSeconds))
    }
}

import Foundation
import LightboxProtocol
import Media
import NIOPosix
import Synchronization

/// A fixed number of threads for blocking work (decoding, rendering, hashing, copying, metadata
/// rewriting, waiting for ffmpeg), so at most `threadCount` such jobs run at once and none of them
/// blocks one of Swift concurrency's cooperative threads, which the service needs to keep
/// answering requests.
///
/// The threads and their queue are swift-nio's `NIOThreadPool`; this type adds the bound: when
/// every thread is busy and `maximumWaiting` jobs are already waiting, a new one is refused at once
/// with `busy` instead of queueing without bound. A job whose task is cancelled while it waits is
/// dropped (`CancellationError`) without running.
final class BlockingWorkPool: BlockingRunner {
    let threadCount: Int
    let maximumWaiting: Int
    private let pool: NIOThreadPool
    private let state = Mutex(State())

    private struct State {
        /// Jobs accepted and not yet finished: running or waiting.
        var admitted = 0
        var isStopped = false
        var isShutDown = false

        /// Whether the pool should shut down now (stopped and idle); true once only.
        mutating func takeShutDown() -> Bool {
            guard isStopped, admitted == 0, !isShutDown else { return false }
            isShutDown = true
            return true
        }
    }

    /// `threadCount` threads (at least 1) named `name-…`; `maximumWaiting` jobs may queue behind them.
    init(threadCount: Int, maximumWaiting: Int, name: String) {
        self.threadCount = max(1, threadCount)
        self.maximumWaiting = max(0, maximumWaiting)
        pool = NIOThreadPool(numberOfThreads: self.threadCount)
        pool._start(threadNamePrefix: "\(name)-")
    }

    /// The pool size for this machine: one thread per core, at most 8.
    static var defaultThreadCount: Int { min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 8) }

    /// Runs `job` on one of the pool's threads and returns what it returns.
    func run<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result {
        try admit()
        defer { release() }
        return try await pool.runIfActive {
            Self.yieldToRequests()
            return try job()
        }
    }

    /// The niceness of the pool's threads: when the cores are busy rendering, the threads that
    /// answer requests (Swift's cooperative threads, the transport's) run first, so another app's
    /// small request is not queued behind renderings for the CPU. libvips' worker threads, made by
    /// these threads, inherit it.
    static let niceness: Int32 = 10

    /// Lowers the calling thread's priority to `niceness`: on Linux the nice value is per thread,
    /// and `who` 0 is the calling thread. A system call that cheap is made per job.
    private static func yieldToRequests() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
    }

    /// Refuses new jobs; the jobs already accepted (running or waiting) still run, and the threads
    /// end after the last of them. Returns at once.
    func stop() {
        let shutDownNow = state.withLock { state in
            state.isStopped = true
            return state.takeShutDown()
        }
        if shutDownNow { shutDown() }
    }

    private func admit() throws(LightboxError) {
        try state.withLock { state throws(LightboxError) in
            guard !state.isStopped else {
                throw LightboxError(.cancelled, "lightbox-picker is shutting down.")
            }
            guard state.admitted < threadCount + maximumWaiting else {
                throw LightboxError(.busy, "lightbox-picker is rendering as much as it can; try again in a moment.")
            }
            state.admitted += 1
        }
    }

    private func release() {
        let shutDownNow = state.withLock { state in
            state.admitted -= 1
            return state.takeShutDown()
        }
        if shutDownNow { shutDown() }
    }

    private func shutDown() {
        pool.shutdownGracefully { _ in }
    }
}

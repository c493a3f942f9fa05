import Foundation
import LightboxProtocol

/// A fixed number of threads for blocking work (libvips decoding and encoding, metadata
/// rewriting), so at most `threadCount` such jobs run at once and none of them blocks one of
/// Swift concurrency's cooperative threads, which the service needs to keep answering requests.
///
/// A small pool of our own rather than swift-nio's NIOThreadPool: it needs only a queue and a few
/// threads, and the picker would otherwise build and link all of swift-nio for those 80 lines.
/// Jobs wait in order; when every thread is busy and `maximumWaiting` jobs are already waiting,
/// a new one is refused with `busy` instead of queueing without bound.
final class BlockingWorkPool: @unchecked Sendable {
    let threadCount: Int
    let maximumWaiting: Int
    // `condition` guards `waiting`, `active` and `isStopped`.
    private let condition = NSCondition()
    private var waiting: [@Sendable () -> Void] = []
    /// Jobs running now.
    private var active = 0
    private var isStopped = false

    /// `threadCount` threads (at least 1) named `name-1`…; `maximumWaiting` jobs may queue behind them.
    init(threadCount: Int, maximumWaiting: Int, name: String) {
        self.threadCount = max(1, threadCount)
        self.maximumWaiting = max(0, maximumWaiting)
        for index in 1...self.threadCount {
            let threadName = "\(name)-\(index)"
            let thread = Thread { [self] in
                // Named from inside: Linux threads otherwise keep the name of the thread that made them.
                Thread.current.name = threadName
                work()
            }
            thread.start()
        }
    }

    /// The pool size for this machine: one thread per core, at most 8.
    static var defaultThreadCount: Int { min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 8) }

    /// Runs `job` on one of the pool's threads and returns what it returns.
    func run<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, Error>) in
            condition.lock()
            defer { condition.unlock() }
            guard !isStopped else {
                continuation.resume(throwing: LightboxError(.cancelled, "lightbox-picker is shutting down."))
                return
            }
            guard active + waiting.count < threadCount + maximumWaiting else {
                continuation.resume(throwing: LightboxError(.busy, "lightbox-picker is rendering as much as it can; try again in a moment."))
                return
            }
            waiting.append { continuation.resume(with: Swift.Result { try job() }) }
            condition.signal()
        }
    }

    /// Lets the threads finish their current job and end; jobs still waiting are run first.
    func stop() {
        condition.lock()
        isStopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while waiting.isEmpty && !isStopped { condition.wait() }
            if waiting.isEmpty {
                condition.unlock()
                return
            }
            let job = waiting.removeFirst()
            active += 1
            condition.unlock()
            job()
            condition.lock()
            active -= 1
            condition.unlock()
        }
    }
}

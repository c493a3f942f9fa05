import Foundation

/// Where Media's blocking steps run when they are called from async code: reading a movie's
/// headers (libavformat, up to its deadline), reading a result back to verify it. Never one of
/// Swift concurrency's few cooperative threads, which the services need to keep answering.
/// lightbox-picker passes its bounded render pool; `DedicatedThread` is the default.
public protocol BlockingRunner: Sendable {
    /// Runs `job` off the cooperative threads and returns what it returns.
    func run<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result
}

/// A new thread for each job: for work that is rare and long, such as waiting for a child
/// process, and for callers without a pool of their own.
public struct DedicatedThread: BlockingRunner {
    public let name: String

    public init(name: String = "lightbox-blocking") {
        self.name = name
    }

    public func run<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, Error>) in
            let thread = Thread { continuation.resume(with: Swift.Result { try job() }) }
            thread.name = name
            thread.start()
        }
    }
}

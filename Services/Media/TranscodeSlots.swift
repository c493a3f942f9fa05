import Foundation

/// At most `limit` transcodes at once; the others wait their turn, first come first served. Each
/// ffmpeg runs with one thread, so half the cores keeps the machine answering everything else.
public actor TranscodeSlots {
    public static let shared = TranscodeSlots(limit: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))

    public let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `work` once a slot is free.
    public func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        if running >= limit {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            running += 1
        }
        // A slot handed over by `release` stays counted in `running`.
        defer { release() }
        return try await work()
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

import Synchronization

/// Lets one task at a time through, in the order they came: a lock that may be held across
/// suspension points (the audit trail's writes, so a later batch never commits before an earlier).
final class SerialGate: Sendable {
    private struct State {
        var isHeld = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func run<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceeds = state.withLock { state -> Bool in
                guard state.isHeld else {
                    state.isHeld = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if proceeds { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

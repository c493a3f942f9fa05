import Synchronization

/// The first of several outcomes to arrive (a result, a time limit, a cancellation), awaited once:
/// later ones are ignored. Lets a wait end when its first contender does, where a task group would
/// wait for every child to finish.
final class FirstOutcome<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Result<Value, any Error>, Never>?)
        case settled(Result<Value, any Error>)
        case taken
    }

    private let state = Mutex<State>(.waiting(nil))

    /// Records `outcome` unless one came first, and wakes the waiter.
    func settle(_ outcome: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Result<Value, any Error>, Never>? = state.withLock { state in
            switch state {
            case .waiting(let continuation?):
                state = .taken
                return continuation
            case .waiting(nil):
                state = .settled(outcome)
                return nil
            case .settled, .taken:
                return nil
            }
        }
        waiter?.resume(returning: outcome)
    }

    /// The first outcome, once there is one. Awaited by one task only.
    var value: Result<Value, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Result<Value, any Error>? = state.withLock { state in
                    if case .settled(let outcome) = state {
                        state = .taken
                        return outcome
                    }
                    state = .waiting(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

import Synchronization

/// The handler tasks a server has started and not yet seen finish, so a graceful shutdown can wait
/// for them within a bound and cancel the rest.
final class RunningHandlers: Sendable {
    private struct State {
        var next: UInt64 = 0
        var tasks: [UInt64: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Starts `work` as a task that removes itself when done, preferring `executor` when given.
    func start(on executor: (any TaskExecutor)? = nil, _ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let key = state.next
            state.next += 1
            state.tasks[key] = Task(executorPreference: executor) { [self] in
                await work()
                _ = self.state.withLock { $0.tasks.removeValue(forKey: key) }
            }
        }
    }

    var count: Int { state.withLock { $0.tasks.count } }

    func cancelAll() {
        for task in state.withLock({ Array($0.tasks.values) }) { task.cancel() }
    }
}

/// How many streams are being sent, read by a graceful shutdown waiting for them.
final class ActiveStreamCount: Sendable {
    private let value = Atomic<Int>(0)
    func add(_ count: Int) { value.add(count, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}

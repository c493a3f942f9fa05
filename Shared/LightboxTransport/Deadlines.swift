/// Actions due at a time, run by one loop (`run()`, a child task of the service): a pending pick's
/// timeout, a prompt's, the end of an owner's long poll. An entry is cancelled when what it would
/// end ends first, so the entries are as many as what is pending, not as many as came and went,
/// and nothing sleeps on for an answered pick.
public actor Deadlines {
    /// Names a scheduled action, to cancel it.
    public struct Token: Hashable, Sendable {
        let number: UInt64
    }

    private struct Entry {
        var due: ContinuousClock.Instant
        var action: @Sendable () async -> Void
    }

    private var entries: [Token: Entry] = [:]
    private var lastNumber: UInt64 = 0
    /// The loop's wait for an earlier deadline, resumed by `schedule`.
    private var alarm: CheckedContinuation<Void, Never>?
    /// Set by `schedule` while the loop was not yet waiting: it looks again before it waits.
    private var alarmRung = false

    public init() {}

    /// Runs `action` once `delay` has passed, unless `cancel(_:)` comes first.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () async -> Void) -> Token {
        lastNumber += 1
        let token = Token(number: lastNumber)
        entries[token] = Entry(due: .now + delay, action: action)
        ringAlarm()
        return token
    }

    /// Forgets the action, if it has not run yet.
    public func cancel(_ token: Token) {
        entries[token] = nil
    }

    /// Actions waiting for their time.
    public var count: Int { entries.count }

    /// Runs each action when it is due, until the task running this is cancelled; what is still
    /// waiting then never runs.
    public func run() async {
        while !Task.isCancelled {
            alarmRung = false
            let now = ContinuousClock.now
            let due = entries.filter { $0.value.due <= now }.sorted { $0.value.due < $1.value.due }
            for (token, entry) in due {
                // One cancelled while an earlier action ran stays cancelled.
                guard entries.removeValue(forKey: token) != nil else { continue }
                await entry.action()
            }
            await sleep(until: entries.values.map(\.due).min())
        }
    }

    /// Returns at `due` (nil: none), when `schedule` adds an entry, or when the loop is cancelled.
    private func sleep(until due: ContinuousClock.Instant?) async {
        await withTaskGroup(of: Void.self) { group in
            // Without a deadline, the sleep still ends when the loop is cancelled.
            group.addTask { try? await Task.sleep(until: due ?? .now + .seconds(3600)) }
            group.addTask { await self.waitForAlarm() }
            await group.next()
            group.cancelAll()
            ringAlarm()
        }
    }

    private func waitForAlarm() async {
        guard !alarmRung else { return }
        await withCheckedContinuation { alarm = $0 }
    }

    private func ringAlarm() {
        if let alarm {
            self.alarm = nil
            alarm.resume()
        } else {
            alarmRung = true
        }
    }
}

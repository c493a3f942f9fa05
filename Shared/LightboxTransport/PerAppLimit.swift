import Synchronization

/// Counts something each app holds open (prompts it waits on, pending picks) against a limit, so
/// no one app can fill a service with them.
public final class PerAppLimit: Sendable {
    public let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    public init(_ limit: Int) {
        self.limit = limit
    }

    /// Takes one for `app`; false when it already holds `limit`.
    public func enter(_ app: String) -> Bool {
        counts.withLock { counts in
            let held = counts[app, default: 0]
            guard held < limit else { return false }
            counts[app] = held + 1
            return true
        }
    }

    public func leave(_ app: String) {
        counts.withLock { counts in
            let held = counts[app, default: 1] - 1
            counts[app] = held > 0 ? held : nil
        }
    }
}

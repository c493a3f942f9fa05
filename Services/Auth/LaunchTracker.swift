import LightboxProtocol
import LightboxTransport

/// Which launches of each app have touched the library: a limited app's first library access in
/// each launch raises the limited-library prompt. A launch is one process of the app when its
/// client said so on each connection (`service.hello`), else one connection, as it was before
/// clients said it. Who the app is comes from its key alone; the launch only groups that app's
/// connections, so one connection is never more than one launch, and an app that invents a new
/// launch for every connection gets what it got when every connection was a launch.
///
/// Bounded: at most `launchesPerApp` launches per app are remembered, the oldest forgotten first
/// (one forgotten and seen again counts as new, which costs the owner at most one more alert).
actor LaunchTracker {
    static let launchesPerApp = 256

    private struct Seen {
        var keys: Set<String> = []
        var order: [String] = []
        var start = 0
    }

    private var seen: [String: Seen] = [:]

    /// True the first time this launch of this app is seen.
    func isFirstAccess(_ launch: AppLaunch) -> Bool {
        let key = ConnectionLaunch(connection: launch.connection, launch: launch.launch).key
        var entry = seen[launch.app, default: Seen()]
        defer { seen[launch.app] = entry }
        guard entry.keys.insert(key).inserted else { return false }
        entry.order.append(key)
        if entry.keys.count > Self.launchesPerApp {
            entry.keys.remove(entry.order[entry.start])
            entry.start += 1
            // The forgotten front is dropped now and then, not on every insert.
            if entry.start >= Self.launchesPerApp {
                entry.order.removeFirst(entry.start)
                entry.start = 0
            }
        }
        return true
    }

    /// How many launches of `app` are remembered (for tests of the bound).
    func remembered(of app: String) -> Int { seen[app]?.keys.count ?? 0 }
}

/// Which app connections have touched the library: a new connection is a new launch, and a limited
/// app's first library access in each launch raises the limited-library prompt.
actor LaunchTracker {
    private var seen: [String: Set<String>] = [:]

    /// True the first time this connection of this app is seen.
    func isFirstAccess(app: String, connection: String) -> Bool {
        seen[app, default: []].insert(connection).inserted
    }
}

/// Image requests in progress, so `image.cancel` can reach them. A request is known by the app
/// that made it and its request id together: an app can cancel only its own requests, and
/// another app's ids read as unknown (so they cannot be probed either).
actor ImageRequestRegistry {
    struct Key: Hashable {
        var app: String
        var request: String
    }

    private var running: Set<Key> = []
    private var cancelled: Set<Key> = []

    func begin(_ request: String, of app: String) { running.insert(Key(app: app, request: request)) }

    func end(_ request: String, of app: String) {
        let key = Key(app: app, request: request)
        running.remove(key)
        cancelled.remove(key)
    }

    /// Marks `app`'s running request cancelled; false when that app has no such request running.
    func cancel(_ request: String, of app: String) -> Bool {
        let key = Key(app: app, request: request)
        guard running.contains(key) else { return false }
        cancelled.insert(key)
        return true
    }

    func isCancelled(_ request: String, of app: String) -> Bool { cancelled.contains(Key(app: app, request: request)) }
}

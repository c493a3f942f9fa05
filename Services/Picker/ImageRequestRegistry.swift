import Synchronization

/// Image requests in progress, so `image.cancel` can reach them. A request is known by the app
/// that made it and its request id together: an app can cancel only its own requests, and
/// another app's ids read as unknown (so they cannot be probed either).
///
/// A lock, not an actor: each call is a set lookup, and an image request asks three times (begin,
/// whether cancelled, end); as an actor, each was a hop and the end a task of its own.
final class ImageRequestRegistry: Sendable {
    struct Key: Hashable {
        var app: String
        var request: String
    }

    private struct State {
        var running: Set<Key> = []
        var cancelled: Set<Key> = []
    }

    private let state = Mutex(State())

    func begin(_ request: String, of app: String) {
        state.withLock { _ = $0.running.insert(Key(app: app, request: request)) }
    }

    func end(_ request: String, of app: String) {
        let key = Key(app: app, request: request)
        state.withLock { state in
            state.running.remove(key)
            state.cancelled.remove(key)
        }
    }

    /// Marks `app`'s running request cancelled; false when that app has no such request running.
    func cancel(_ request: String, of app: String) -> Bool {
        let key = Key(app: app, request: request)
        return state.withLock { state in
            guard state.running.contains(key) else { return false }
            state.cancelled.insert(key)
            return true
        }
    }

    func isCancelled(_ request: String, of app: String) -> Bool {
        state.withLock { $0.cancelled.contains(Key(app: app, request: request)) }
    }
}

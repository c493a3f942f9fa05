import LightboxProtocol
import LightboxTransport

/// Apps watching their access (`auth.watch`): each change is sent to the app's open watch requests.
actor ChangeBroadcaster {
    /// Watches kept per app; the oldest is ended when an app opens more (a reconnecting client
    /// leaves its old watch behind until the keep-alive or heartbeats show it is gone).
    static let watchesPerApp = 16
    private var watchers: [String: [Responder]] = [:]

    func add(_ responder: Responder, for app: String) {
        var list = watchers[app, default: []]
        if list.count >= Self.watchesPerApp {
            list.removeFirst().fail(LightboxError(.cancelled, "Too many watches open for \(app); this oldest one was closed."))
        }
        list.append(responder)
        watchers[app] = list
    }

    /// Drops watches whose connection is known to be gone, then sends the rest a keep-alive
    /// (`progress` `{"keepAlive":true}`, which clients ignore): a send to a vanished connection is
    /// how the transport learns it is gone, so the next round releases it. Returns how many were dropped.
    func keepAlive() -> Int {
        var released = 0
        for (app, list) in watchers {
            let live = list.filter(\.isConnected)
            released += list.count - live.count
            watchers[app] = live.isEmpty ? nil : live
            for responder in live { responder.progress(KeepAlive()) }
        }
        return released
    }

    /// Open watches, over all apps.
    var count: Int { watchers.values.reduce(0) { $0 + $1.count } }

    func publish(_ changes: [AuthorizationChange]) {
        for change in changes {
            for responder in watchers[change.app] ?? [] { responder.event(change) }
        }
    }
}

/// The body of a watch's keep-alive.
struct KeepAlive: Codable, Sendable {
    var keepAlive = true
}

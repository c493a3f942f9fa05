import LightboxProtocol
import LightboxTransport

/// Apps watching their access (`auth.watch`): each change is sent to the app's open watch requests.
actor ChangeBroadcaster {
    /// Watches kept per app; the oldest is ended when an app opens more (a reconnecting client
    /// leaves its old watch behind, and the ROUTER cannot tell us it is gone).
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

    func publish(_ changes: [AuthorizationChange]) {
        for change in changes {
            for responder in watchers[change.app] ?? [] { responder.event(change) }
        }
    }
}

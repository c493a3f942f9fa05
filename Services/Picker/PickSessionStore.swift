import Foundation
import LightboxProtocol
import LightboxTransport
import Metrics

/// Picks waiting for the owner. Each holds the app's open request, answered when the owner
/// chooses, cancels, or the pick times out.
actor PickSessionStore {
    struct Session: Sendable {
        var id: String
        var app: String
        var appName: String?
        var configuration: PickerConfiguration
        var createdAt: Date
        var reply: LaterReply<PickResponse>

        var pending: PendingPick {
            PendingPick(pick: id, app: app, appName: appName, configuration: configuration, createdAt: createdAt)
        }
    }

    private var sessions: [String: Session] = [:] {
        didSet { pendingGauge.record(sessions.count) }
    }
    private let pendingGauge = Gauge(label: "lightbox_pending_picks")
    private var watchers: [UUID: CheckedContinuation<Void, Never>] = [:]

    /// A new session, or nil when `app` already has `limit` picks waiting for the owner.
    func open(app: String, appName: String?, configuration: PickerConfiguration, reply: LaterReply<PickResponse>, limit: Int = .max) -> Session? {
        guard sessions.values.lazy.filter({ $0.app == app }).count < limit else { return nil }
        let session = Session(id: "pick-" + SecureRandom.token(bytes: 9), app: app, appName: appName,
                              configuration: configuration, createdAt: Date(), reply: reply)
        sessions[session.id] = session
        for watcher in watchers.values { watcher.resume() }
        watchers.removeAll()
        return session
    }

    func session(_ id: String) -> Session? { sessions[id] }

    /// Removes and returns a session: whoever takes it answers the app, exactly once.
    func take(_ id: String) -> Session? { sessions.removeValue(forKey: id) }

    func pending() -> [Session] { sessions.values.sorted { $0.createdAt < $1.createdAt } }

    /// Returns once a pick is pending or `timeout` has passed.
    func waitForPending(upTo timeout: Duration) async {
        guard sessions.isEmpty, timeout > .zero else { return }
        let key = UUID()
        await withCheckedContinuation { continuation in
            watchers[key] = continuation
            Task {
                try? await Task.sleep(for: timeout)
                self.wake(key)
            }
        }
    }

    private func wake(_ key: UUID) {
        watchers.removeValue(forKey: key)?.resume()
    }
}

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
        /// When the pick times out, until it is taken.
        var expiry: Deadlines.Token?

        /// The app's name as the owner's sheet shows it.
        var shownName: String { appName ?? app }

        var pending: PendingPick {
            PendingPick(pick: id, app: app, appName: appName, configuration: configuration, createdAt: createdAt)
        }
    }

    private var sessions: [String: Session] = [:] {
        didSet { pendingGauge.record(sessions.count) }
    }
    private let pendingGauge = Gauge(label: "lightbox_pending_picks")
    private var watchers: [UUID: CheckedContinuation<Void, Never>] = [:]
    private let deadlines: Deadlines

    init(deadlines: Deadlines) {
        self.deadlines = deadlines
    }

    /// A new session, or nil when `app` already has `limit` picks waiting for the owner. Unless
    /// it is taken first, the session is taken after `timeout` and handed to `expired`.
    func open(app: String, appName: String?, configuration: PickerConfiguration, reply: LaterReply<PickResponse>, limit: Int,
              timeout: Duration, expired: @escaping @Sendable (Session) -> Void) async -> Session? {
        guard sessions.values.lazy.filter({ $0.app == app }).count < limit else { return nil }
        let id = "pick-" + SecureRandom.token(bytes: 9)
        var session = Session(id: id, app: app, appName: appName, configuration: configuration, createdAt: Date(), reply: reply)
        sessions[id] = session
        for watcher in watchers.values { watcher.resume() }
        watchers.removeAll()
        let expiry = await deadlines.schedule(after: timeout) { [self] in
            if let session = await take(id) { expired(session) }
        }
        session.expiry = expiry
        // Taken meanwhile: its timeout goes with it.
        if sessions[id] == nil { await deadlines.cancel(expiry) } else { sessions[id]?.expiry = expiry }
        return session
    }

    func session(_ id: String) -> Session? { sessions[id] }

    /// Removes and returns a session: whoever takes it answers the app, exactly once.
    func take(_ id: String) async -> Session? {
        await take(id, filedBy: nil)
    }

    /// Removes and returns a session filed by `app` (nil: by anyone); another app's stays.
    func take(_ id: String, filedBy app: String?) async -> Session? {
        guard let filed = sessions[id], app == nil || filed.app == app, let session = sessions.removeValue(forKey: id) else { return nil }
        if let expiry = session.expiry { await deadlines.cancel(expiry) }
        return session
    }

    func pending() -> [Session] { sessions.values.sorted { $0.createdAt < $1.createdAt } }

    /// Returns once a pick is pending or `timeout` has passed.
    func waitForPending(upTo timeout: Duration) async {
        guard sessions.isEmpty, timeout > .zero else { return }
        let key = UUID()
        let end = await deadlines.schedule(after: timeout) { [self] in await wake(key) }
        // A pick may have come while the deadline was set.
        if sessions.isEmpty { await withCheckedContinuation { watchers[key] = $0 } }
        await deadlines.cancel(end)
    }

    private func wake(_ key: UUID) {
        watchers.removeValue(forKey: key)?.resume()
    }
}

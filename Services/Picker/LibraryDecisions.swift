import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Synchronization

/// How the picker learns what lightbox-auth decided for an app: from its cache while it follows
/// auth's change announcements, otherwise by asking (`auth.decisions.get`, which also brings the
/// limited selection, its assets and the albums it follows, into the SelectionTable). The picker
/// applies decisions; it makes none.
struct LibraryDecisions: Sendable {
    let cache: DecisionCache
    let selections: any SelectionStorage
    /// App launches already reported to auth (`auth.launch`).
    let launches: LaunchNotices
    let logger: Logger
    /// Told when an app's selection changes, so that its library watchers hear of albums it began
    /// or stopped following (the change log records them with the selection).
    var changeFeed: LibraryChangeFeed? = nil

    /// How long the follow stream may be silent: auth sends a keep-alive every second, so a longer
    /// silence means auth is gone and the stream is started again. (A restart is noticed at once:
    /// the connection's disconnection count changes, and the cache is not used from then on.)
    static let followSilence: Duration = .seconds(3)

    func decision(_ action: LibraryAction, for app: String, origin: ConnectionLaunch, auth: DealerConnection) async throws -> LibraryDecision {
        if launches.isFirst(app: app, origin) {
            // The app does not wait for this: auth decides on its own whether to prompt the owner.
            auth.post(.appLaunched, AppLaunch(app: app, connection: origin.connection, launch: origin.launch))
        }
        if let cached = cache.decision(action, for: app, connection: auth.disconnections) { return cached }
        guard let decision = try await fetch(app, auth: auth).decision(action) else {
            throw LightboxError(.internal, "lightbox-auth sent no decision for \(action.rawValue); is it the same version as the picker?")
        }
        return decision
    }

    /// Asks auth for the app's decisions and stores its selection, then the decisions.
    private func fetch(_ app: String, auth: DealerConnection) async throws -> AppDecisions {
        let answer = try await auth.request(.decisions, AppDecisionsRequest(app: app), as: AppDecisions.self)
        // The selection first, then the cache: a cached `selection` scope always finds its rows.
        if try await selections.replace(app: app, with: answer.selection, albums: answer.albums ?? [], version: answer.version) {
            cache.store(answer)
            changeFeed?.libraryChanged()
        }
        return answer
    }

    /// Follows auth's announcements until cancelled, starting again whenever the stream ends.
    func follow(auth: DealerConnection) async {
        while !Task.isCancelled {
            var follower: String?
            // Counted before the request goes out: a drop after this disables the cache.
            let connection = auth.disconnections
            do {
                for try await reply in auth.send(.followDecisions, Empty(), timeout: Self.followSilence) {
                    cache.heard()
                    guard reply.status == .event else { continue }
                    let changed = try reply.body(DecisionsChanged.self)
                    guard follower != nil else {
                        follower = changed.follower
                        cache.startFollowing(at: changed.version, connection: connection)
                        logger.info("following lightbox-auth's decisions", metadata: ["follower": "\(changed.follower)"])
                        continue
                    }
                    cache.drop(changed.apps, at: changed.version)
                    // Watched apps' selections are stored now, not at their next request: the albums
                    // they began or stopped following reach their watchers before the owner is answered.
                    for app in changed.apps where await changeFeed?.isWatched(app) == true {
                        do {
                            _ = try await fetch(app, auth: auth)
                        } catch {
                            logger.notice("could not store a watched app's new selection", metadata: ["app": "\(app)", "error": "\(error)"])
                        }
                    }
                    // Confirmed once dropped: auth answers the owner's change only after this.
                    _ = try? await auth.request(.decisionsApplied, DecisionsApplied(follower: changed.follower, version: changed.version),
                                                as: Empty.self)
                }
            } catch {
                if follower != nil { logger.notice("stopped following lightbox-auth's decisions", metadata: ["error": "\(error)"]) }
            }
            cache.stopFollowing()
            try? await Task.sleep(for: .milliseconds(300))
        }
    }
}

/// Which app launches the picker has told auth about: a process that said its launch on each of its
/// connections (`service.hello`) is one, a connection that said nothing another. The set is bounded
/// (cleared when full: a repeated notice costs auth a lookup, nothing more).
final class LaunchNotices: Sendable {
    private let seen = Mutex<Set<String>>([])
    static let capacity = 65_536

    func isFirst(app: String, _ origin: ConnectionLaunch) -> Bool {
        seen.withLock { seen in
            if seen.count >= Self.capacity { seen.removeAll() }
            return seen.insert(app + "\u{0}" + origin.key).inserted
        }
    }
}

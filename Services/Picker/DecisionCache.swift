import LightboxProtocol
import Metrics
import Synchronization

/// The picker's copy of lightbox-auth's decisions, per app. Auth stays the only place where
/// permission logic lives: entries are auth's answers (`auth.decisions.get`), kept only while the
/// picker follows auth's announcements of changes (`auth.decisions.follow`). An announcement drops
/// the app's entry before the picker confirms it, so the owner's change is in force here before it
/// is acknowledged; an answer older than the latest announcement is used once, never kept.
final class DecisionCache: Sendable {
    private struct State {
        var isFollowing = false
        var entries: [String: AppDecisions] = [:]
        /// The newest announced version per app (kept after the entry is dropped).
        var announced: [String: Int64] = [:]
        /// The version the follow stream started at: answers older than it are from before.
        var followedSince: Int64 = .max
        /// The connection's disconnection count when the stream started; once it differs, auth
        /// may have restarted without this stream, and nothing cached is used.
        var connection = 0
        /// When the follow stream last brought anything (a keep-alive or an announcement).
        var lastHeard: ContinuousClock.Instant?
    }

    /// How long a silent stream still vouches for the copy. Auth sends a keep-alive every second and
    /// acknowledges the owner's change without a follower that has not confirmed it within two
    /// (cutting it off): a picker that heard nothing for longer was stopped or starved, and its
    /// copy may be one auth stopped waiting for — the app is asked about again until the stream
    /// speaks (or ends, which drops everything).
    static let longestSilence: Duration = .milliseconds(1500)

    private let state = Mutex(State())
    private let hits = Counter(label: "lightbox_decision_cache_hits_total")
    private let misses = Counter(label: "lightbox_decision_cache_misses_total")

    /// The cached decision, or nil (counted as a miss) when the app must be asked about.
    /// `connection` is the auth connection's current disconnection count.
    func decision(_ action: LibraryAction, for app: String, connection: Int) -> LibraryDecision? {
        let decision = state.withLock { state -> LibraryDecision? in
            guard state.isFollowing, state.connection == connection, let heard = state.lastHeard,
                  ContinuousClock.now - heard < Self.longestSilence else { return nil }
            return state.entries[app]?.decision(action)
        }
        if decision == nil { misses.increment() } else { hits.increment() }
        return decision
    }

    /// Keeps an answer unless a change newer than it was announced, or nothing is followed.
    func store(_ answer: AppDecisions) {
        state.withLock { state in
            guard state.isFollowing, answer.version >= state.followedSince,
                  answer.version >= state.announced[answer.app, default: .min] else { return }
            if let kept = state.entries[answer.app], kept.version > answer.version { return }
            state.entries[answer.app] = answer
        }
    }

    /// A follow stream began at `version` on a connection with `connection` disconnections so far: start from nothing.
    func startFollowing(at version: Int64, connection: Int) {
        state.withLock { state in
            state = State()
            state.isFollowing = true
            state.followedSince = version
            state.connection = connection
            state.lastHeard = .now
        }
    }

    /// The follow stream brought something: the copy is as current as auth's last announcement.
    func heard() {
        state.withLock { $0.lastHeard = .now }
    }

    /// The follow stream ended: nothing cached can be trusted until it is back.
    func stopFollowing() {
        state.withLock { $0 = State() }
    }

    /// These apps' decisions changed at `version`.
    func drop(_ apps: [String], at version: Int64) {
        state.withLock { state in
            for app in apps {
                state.entries[app] = nil
                state.announced[app] = max(state.announced[app, default: .min], version)
            }
        }
    }
}

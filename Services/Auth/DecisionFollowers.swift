import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// The services that keep a copy of apps' decisions (the picker, `auth.decisions.follow`). Every
/// change is announced to each of them, and `announce` returns only once each has said it dropped
/// the stale copy (`auth.decisions.applied`) — so when the owner's change is acknowledged, it is
/// already in force wherever decisions are made. A follower that does not confirm in time is cut
/// off: its stream ends, and a follower without a stream must not use its copy. A follower of an
/// earlier run of this service stops using its copy when its connection drops (the restart).
actor DecisionFollowers {
    private struct Follower {
        var responder: Responder
        var applied: Int64
    }

    private var followers: [String: Follower] = [:]
    private var waiters: [UUID: (follower: String, version: Int64, continuation: CheckedContinuation<Void, Never>)] = [:]
    /// Versions only grow, across restarts too: they start at the clock (microseconds).
    private var version = Int64(Date().timeIntervalSince1970 * 1_000_000)
    let confirmationTimeout: Duration
    private let deadlines: Deadlines
    let logger: Logger
    init(confirmationTimeout: Duration = .seconds(2), deadlines: Deadlines, logger: Logger) {
        self.confirmationTimeout = confirmationTimeout
        self.deadlines = deadlines
        self.logger = logger
    }

    /// Sends every follower a keep-alive (its silence would mean this service is gone) and drops
    /// those whose connection is gone.
    func keepAlive() {
        for (name, follower) in followers {
            if follower.responder.isConnected {
                follower.responder.progress(KeepAlive())
            } else {
                drop(name, because: "its connection is gone")
            }
        }
    }

    /// The version an answer computed from now on is at least as new as (read before the store).
    var current: Int64 { version }

    /// A new follower; it gets its name and the current version as the stream's first event.
    func add(_ responder: Responder) -> String {
        let name = "follower-" + SecureRandom.token(bytes: 6)
        followers[name] = Follower(responder: responder, applied: version)
        responder.event(DecisionsChanged(follower: name, version: version, apps: []))
        logger.info("a service follows decisions", metadata: ["follower": "\(name)"])
        return name
    }

    /// Tells every follower that these apps' decisions changed and waits until each confirmed.
    func announce(_ apps: Set<String>) async {
        guard !apps.isEmpty else { return }
        version += 1
        let version = self.version
        let message = DecisionsChanged(follower: "", version: version, apps: apps.sorted())
        for (name, follower) in followers {
            guard follower.responder.isConnected else {
                drop(name, because: "its connection is gone")
                continue
            }
            var event = message
            event.follower = name
            follower.responder.event(event)
        }
        for name in Array(followers.keys) {
            await waitForConfirmation(from: name, of: version)
        }
    }

    func confirm(_ applied: DecisionsApplied) {
        guard var follower = followers[applied.follower] else { return }
        follower.applied = max(follower.applied, applied.version)
        followers[applied.follower] = follower
        for (key, waiter) in waiters where waiter.follower == applied.follower && waiter.version <= follower.applied {
            waiters.removeValue(forKey: key)
            waiter.continuation.resume()
        }
    }

    /// Ends every follower's stream (at shutdown).
    func endAll(because reason: String) {
        for name in Array(followers.keys) { drop(name, because: reason, level: .info) }
    }

    private func waitForConfirmation(from name: String, of version: Int64) async {
        guard let follower = followers[name], follower.applied < version else { return }
        let key = UUID()
        let end = await deadlines.schedule(after: confirmationTimeout) { [self] in await expire(key) }
        // The confirmation may have come while the deadline was set.
        if let follower = followers[name], follower.applied < version {
            await withCheckedContinuation { waiters[key] = (name, version, $0) }
        }
        await deadlines.cancel(end)
    }

    private func expire(_ key: UUID) {
        guard let waiter = waiters.removeValue(forKey: key) else { return }
        drop(waiter.follower, because: "it did not confirm a change within \(confirmationTimeout)")
        waiter.continuation.resume()
    }

    private func drop(_ name: String, because reason: String, level: Logger.Level = .warning) {
        guard let follower = followers.removeValue(forKey: name) else { return }
        follower.responder.fail(LightboxError(.timeout, "Stopped following decisions: \(reason). Drop every cached decision and follow again."))
        for (key, waiter) in waiters where waiter.follower == name {
            waiters.removeValue(forKey: key)
            waiter.continuation.resume()
        }
        logger.log(level: level, "a decision follower was cut off", metadata: ["follower": "\(name)", "reason": "\(reason)"])
    }
}

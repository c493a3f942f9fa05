import Foundation
import LightboxProtocol
import LightboxTransport
import Synchronization

/// The progress of the watched folders' imports, for the owner's pages (`owner.watchedImports`):
/// each follower gets the running import's step when it starts following, then the steps as they
/// come — the first, at most one per `interval`, and the last. Followers whose connection has gone
/// are forgotten; past `maximumFollowers` the oldest is ended.
final class WatchedImportProgress: Sendable {
    static let interval: Duration = .milliseconds(100)
    static let maximumFollowers = 16

    private struct State {
        var followers: [(id: UUID, reply: LaterReply<Empty>)] = []
        /// The running import's latest step; nil when none runs.
        var current: ImportProgress?
        var lastSent: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    func follow(_ reply: LaterReply<Empty>) {
        let (current, ended) = state.withLock { state -> (ImportProgress?, LaterReply<Empty>?) in
            state.followers.removeAll { !$0.reply.isConnected }
            let ended = state.followers.count >= Self.maximumFollowers ? state.followers.removeFirst().reply : nil
            state.followers.append((UUID(), reply))
            return (state.current, ended)
        }
        ended?.fail(LightboxError(.cancelled, "Too many followers of the watched folders' imports; this oldest one was closed."))
        if let current { reply.event(current) }
    }

    /// Records a step and sends it when it is due.
    func report(_ step: ImportProgress) {
        let now = ContinuousClock.now
        let recipients = state.withLock { state -> [LaterReply<Empty>] in
            let isLast = step.completed >= step.total
            state.current = isLast ? nil : step
            guard isLast || step.completed <= 1 || state.lastSent.map({ now - $0 >= Self.interval }) ?? true else { return [] }
            state.lastSent = now
            state.followers.removeAll { !$0.reply.isConnected }
            return state.followers.map(\.reply)
        }
        for reply in recipients { reply.event(step) }
    }
}

import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// Grants that end. Keeps one deadline, at the earliest term's end: when it comes, every grant
/// whose term is over returns to what its term said and watchers and the picker are told, as for
/// any change of access; then the next end is scheduled. And, every so often, access an app has not
/// used for `unusedAfter` is reset (as Android's auto-reset does).
actor GrantTerms {
    private let store: any AuthStorage
    private let accessChanges: AccessChanges
    private let deadlines: Deadlines
    private let unusedAfter: Duration?
    private let logger: Logger
    /// The one scheduled end, and when it is due.
    private var next: (due: Date, token: Deadlines.Token)?

    init(store: any AuthStorage, accessChanges: AccessChanges, deadlines: Deadlines, unusedAfter: Duration?, logger: Logger) {
        self.store = store
        self.accessChanges = accessChanges
        self.deadlines = deadlines
        self.unusedAfter = unusedAfter
        self.logger = logger
    }

    /// Ends what ended while the service was down, then keeps the deadline of the next end.
    func start() async {
        await endDueTerms()
    }

    /// A grant with a term was given: its end is scheduled if it comes before the next one.
    func granted(until end: Date) async {
        if let next, next.due <= end { return }
        await schedule(end)
    }

    private func endDueTerms() async {
        do {
            await accessChanges.publish(try await store.endTerms())
            if let end = try await store.nextTermEnd() { await schedule(end) } else { next = nil }
        } catch {
            // Tried again shortly: a grant must not outlive its term because of one failed write.
            logger.error("could not end the grants whose term is over", metadata: ["error": "\(error)"])
            await schedule(Date().addingTimeInterval(5))
        }
    }

    private func schedule(_ end: Date) async {
        if let next { await deadlines.cancel(next.token) }
        let delay = Duration.milliseconds(max(0, Int64((end.timeIntervalSinceNow * 1000).rounded(.up))))
        let token = await deadlines.schedule(after: delay) { [self] in await self.endDueTerms() }
        next = (end, token)
    }

    /// Resets unused access every `interval` until cancelled (a child task of the service). Does
    /// nothing when resetting is off.
    func resetUnusedAccess() async {
        guard let unusedAfter else { return }
        let interval = Self.checkInterval(for: unusedAfter)
        while !Task.isCancelled {
            do {
                let cutoff = Date().addingTimeInterval(-unusedAfter.seconds)
                let changes = try await store.resetUnused(since: cutoff)
                for app in Set(changes.map(\.app)) {
                    logger.notice("access reset because unused", metadata: ["app": "\(app)", "unusedFor": "\(unusedAfter)"])
                }
                await accessChanges.publish(changes)
            } catch {
                logger.error("could not reset unused access", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// The longest term the owner may give; longer is "until changed".
    static let longestTerm: TimeInterval = 366 * 86_400

    /// A term from the owner's request, checked: it ends in the future, within a year.
    static func validated(_ term: GrantTerm) throws -> GrantTerm {
        let seconds = term.until.timeIntervalSinceNow
        guard seconds > 0 else {
            throw LightboxError(.badRequest, "The grant's end (until) is in the past; give a time to come, or no term for until changed.")
        }
        guard seconds <= longestTerm else {
            throw LightboxError(.badRequest, "A grant's term can be at most a year; give no term for access until changed.")
        }
        return term
    }

    /// How often unused access is looked for: a tenth of the period, between a second and an hour.
    static func checkInterval(for unusedAfter: Duration) -> Duration {
        min(max(unusedAfter / 10, .seconds(1)), .seconds(3600))
    }
}

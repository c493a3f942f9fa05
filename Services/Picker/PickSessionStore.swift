import Crypto
import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Metrics

/// Picks waiting for the owner. The sessions live in `PickSessionStorage` (in the database when pickers
/// share one, so the owner connected to any picker lists and answers them); the app's open request
/// stays here, in the process holding the app's connection, answered when the owner chooses or
/// cancels through any picker, or when the pick times out.
actor PickSessionStore {
    typealias Session = PickSessionRecord

    /// A pick this process holds: the app's request, and when it times out.
    private struct Held {
        var session: Session
        var reply: LaterReply<PickResponse>
        var expiry: Deadlines.Token?
    }

    /// How long a holder's picks stay listed without it renewing them (renewed three times as often).
    static let lease: Duration = .seconds(10)

    /// This process, as the holder of its picks.
    let holder = "picker-" + SecureRandom.token(bytes: 9)
    /// What chosen answers are sealed to; it never leaves this process.
    private let holderKey = Curve25519.KeyAgreement.PrivateKey()
    private let storage: any PickSessionStorage
    private var held: [String: Held] = [:] {
        didSet { pendingGauge.record(held.count) }
    }
    private let pendingGauge = Gauge(label: "lightbox_pending_picks")
    private var watchers: [UUID: CheckedContinuation<Void, Never>] = [:]
    /// Counts picks filed (here or elsewhere), so a long poll notices one filed while it looked.
    private var filings = 0
    private let deadlines: Deadlines
    private let delivery: PickDelivery
    private let logger: Logger

    init(storage: any PickSessionStorage, deadlines: Deadlines, delivery: PickDelivery, logger: Logger) {
        self.storage = storage
        self.deadlines = deadlines
        self.delivery = delivery
        self.logger = logger
    }

    /// A new session, or nil when `app` already has `limit` picks waiting for the owner. Unless it is
    /// answered first, the session times out after `timeout` (the app gets `timeout`).
    func open(app: String, appName: String?, configuration: PickerConfiguration, reply: LaterReply<PickResponse>, limit: Int,
              timeout: Duration) async throws -> Session? {
        let now = Date()
        let session = Session(id: "pick-" + SecureRandom.token(bytes: 9), app: app, appName: appName, configuration: configuration,
                              createdAt: now, expiresAt: now.addingTimeInterval(timeout.seconds), holder: holder,
                              holderKey: holderKey.publicKey.rawRepresentation)
        let id = session.id
        // Held before it is filed: an answer may come as soon as it is.
        held[id] = Held(session: session, reply: reply)
        do {
            guard try await storage.file(session, limit: limit) else {
                held[id] = nil
                return nil
            }
        } catch {
            held[id] = nil
            throw error
        }
        filed()
        let expiry = await deadlines.schedule(after: timeout) { [self] in await settle(id, with: .timedOut) }
        // Answered meanwhile: its timeout goes with it.
        if held[id] == nil { await deadlines.cancel(expiry) } else { held[id]?.expiry = expiry }
        return session
    }

    /// A waiting pick, filed at any picker.
    func session(_ id: String) async throws -> Session? {
        try await storage.waiting(id, at: Date())
    }

    /// The picks waiting for the owner, filed at any picker, oldest first.
    func pending() async throws -> [Session] {
        try await storage.waiting(at: Date())
    }

    /// Answers a waiting pick (only one filed by `app`, when given) and returns it, or nil when it is
    /// not waiting. The first answer wins across pickers; the holder delivers it to the app: this
    /// process at once, another when woken.
    func answer(_ id: String, with answer: PickAnswer, filedBy app: String? = nil) async throws -> Session? {
        guard let answered = try await storage.answer(id, with: answer, filedBy: app) else { return nil }
        await deliver(answered)
        return answered
    }

    /// Ends a pick this process holds with `answer` (it timed out, the picker is stopping) unless it
    /// was answered first; either way its app gets the answer.
    private func settle(_ id: String, with answer: PickAnswer) async {
        guard let mine = held[id] else { return }
        do {
            // Nil: answered first, by the owner at some picker.
            var answered = try await storage.answer(id, with: answer, filedBy: nil)
            if answered == nil { answered = try await storage.answered(among: [id]).first }
            if let answered {
                await deliver(answered)
                return
            }
        } catch {
            logger.warning("could not record how a pick ended", metadata: ["pick": "\(id)", "cause": "\(error)"])
        }
        // The storage could not be reached or no longer has the pick: the app is answered all the same.
        var ended = mine.session
        ended.answer = answer
        await deliver(ended)
    }

    /// Gives an answered pick's app its answer, once, when this process holds it.
    private func deliver(_ answered: Session) async {
        guard let answer = answered.answer, let mine = held.removeValue(forKey: answered.id) else { return }
        if let expiry = mine.expiry { await deadlines.cancel(expiry) }
        delivery.deliver(answer, of: answered, to: mine.reply, key: holderKey)
        do {
            try await storage.remove(answered.id)
        } catch {
            logger.warning("could not forget a delivered pick", metadata: ["pick": "\(answered.id)", "cause": "\(error)"])
        }
    }

    /// Follows other pickers' files and answers, and keeps this process's picks listed, until cancelled.
    func follow() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.storage.follow { await self.changed($0) } }
            group.addTask { await self.keepHeld() }
        }
    }

    private func changed(_ change: PickSessionChange) async {
        switch change {
        case .filed:
            filed()
        case .answered(let pick):
            if held[pick] != nil { await deliverAnswered([pick]) }
        case .reread:
            filed()
            await deliverAnswered(Array(held.keys))
        }
    }

    private func deliverAnswered(_ picks: [String]) async {
        guard !picks.isEmpty else { return }
        do {
            for answered in try await storage.answered(among: picks) { await deliver(answered) }
        } catch {
            // Read again at the next wake-up, or when the pick times out here.
            logger.warning("could not read answered picks", metadata: ["cause": "\(error)"])
        }
    }

    private func keepHeld() async {
        while !Task.isCancelled {
            do {
                try await storage.renew(holder: holder, for: Self.lease)
            } catch {
                logger.warning("could not renew the picks' lease", metadata: ["cause": "\(error)"])
            }
            try? await Task.sleep(for: Self.lease / 3)
        }
    }

    /// Ends every pick this process holds (it is shutting down).
    func shutDown() async {
        for id in held.keys { await settle(id, with: .shuttingDown) }
    }

    /// Returns once a pick is pending (at any picker) or `timeout` has passed.
    func waitForPending(upTo timeout: Duration) async {
        guard timeout > .zero else { return }
        let seen = filings
        guard let waiting = try? await storage.waiting(at: Date()), waiting.isEmpty, filings == seen else { return }
        let key = UUID()
        let end = await deadlines.schedule(after: timeout) { [self] in await wake(key) }
        // A pick may have come while the deadline was set.
        if filings == seen { await withCheckedContinuation { watchers[key] = $0 } }
        await deadlines.cancel(end)
    }

    private func filed() {
        filings += 1
        for watcher in watchers.values { watcher.resume() }
        watchers.removeAll()
    }

    private func wake(_ key: UUID) {
        watchers.removeValue(forKey: key)?.resume()
    }
}

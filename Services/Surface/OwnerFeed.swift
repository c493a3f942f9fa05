import Foundation
import LightboxClient
import Logging

/// What the owner must answer now — pending picks and open prompts — kept current by long polls on
/// both services and pushed to every open page as Server-Sent Events, so a sheet appears without a
/// reload as soon as an app asks. When something arrives and no page is open, `openSheet` asks the
/// desktop to show one (see `SheetOpening`).
actor OwnerFeed {
    /// A pick as the page shows it.
    struct PickView: Codable, Sendable, Equatable {
        var pick: String
        var app: String
        var appName: String
        var sentence: String
        /// What the sheet says when nothing in the library matches the pick's filter.
        var nothingMatches: String
        /// Both sentences in the surface's other languages, by language tag (`zh-CN`).
        var sentences: [String: String] = [:]
        var nothingMatchesIn: [String: String] = [:]
        /// What the pick's selection limits let through, in words, and in the other languages; nil without limits.
        var limits: String?
        var limitsIn: [String: String] = [:]
        var configuration: PickerConfiguration
        var createdAt: Date
    }

    struct State: Codable, Sendable, Equatable {
        var picks: [PickView] = []
        var prompts: [OwnerPrompt] = []
    }

    private var state = State()
    /// Picks answered through this surface, newest last: a poll that was under way when one was
    /// answered may still list it, and must not bring its sheet back. Bounded by `rememberedAnswers`.
    private var answered: [String] = []
    static let rememberedAnswers = 64
    private var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
    private let logger: Logger
    private var opening = SheetOpening()
    private let openSheet: (@Sendable () -> Void)?

    init(logger: Logger, openSheet: (@Sendable () -> Void)? = nil) {
        self.logger = logger
        self.openSheet = openSheet
    }

    var current: State { state }

    /// A stream of SSE messages: the current state at once, then every change (and a keep-alive
    /// comment now and then, so a closed page is noticed).
    func subscribe() -> (UUID, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(8))
        subscribers[id] = continuation
        continuation.yield(Self.message(state))
        return (id, stream)
    }

    func unsubscribe(_ id: UUID) {
        subscribers.removeValue(forKey: id)?.finish()
    }

    func broadcast(event: String, json: String) {
        for subscriber in subscribers.values { subscriber.yield("event: \(event)\ndata: \(json)\n\n") }
    }

    private func set(picks: [PendingPick]) {
        let others = SurfaceLanguage.allCases.filter { $0 != .english }.map { SurfaceStrings(language: $0) }
        let views = picks.filter { !answered.contains($0.pick) }.map { pick in
            let name = pick.appName ?? pick.app
            return PickView(pick: pick.pick, app: pick.app, appName: name,
                            sentence: PickDescription.sentence(appName: name, pick.configuration),
                            nothingMatches: PickDescription.nothingMatches(appName: name, pick.configuration),
                            sentences: Dictionary(uniqueKeysWithValues: others.map {
                                ($0.language.tag, PickDescription.sentence(appName: name, pick.configuration, strings: $0))
                            }),
                            nothingMatchesIn: Dictionary(uniqueKeysWithValues: others.map {
                                ($0.language.tag, PickDescription.nothingMatches(appName: name, pick.configuration, strings: $0))
                            }),
                            limits: PickDescription.limits(appName: name, pick.configuration),
                            limitsIn: Dictionary(uniqueKeysWithValues: others.compactMap { strings in
                                PickDescription.limits(appName: name, pick.configuration, strings: strings).map { (strings.language.tag, $0) }
                            }),
                            configuration: pick.configuration, createdAt: pick.createdAt)
        }
        defer { considerOpening() }
        guard views != state.picks else { return }
        state.picks = views
        publish()
    }

    /// A pick the owner just answered or cancelled leaves every page at once, without waiting for
    /// the next poll, so a page loaded right after sees no sheet for it.
    func forget(pick: String) {
        answered.append(pick)
        if answered.count > Self.rememberedAnswers { answered.removeFirst(answered.count - Self.rememberedAnswers) }
        let remaining = state.picks.filter { $0.pick != pick }
        guard remaining.count != state.picks.count else { return }
        state.picks = remaining
        publish()
    }

    /// Asks the picker now (no waiting) whether a pick is still pending, and shows its answer.
    func isPending(_ pick: String, owner: OwnerSurface) async throws -> Bool {
        let pending = try await owner.pendingPicks(waitingUpTo: .zero)
        set(picks: pending)
        return pending.contains { $0.pick == pick } && !answered.contains(pick)
    }

    private func set(prompts: [OwnerPrompt]) {
        defer { considerOpening() }
        guard prompts != state.prompts else { return }
        state.prompts = prompts
        publish()
    }

    /// Runs after every poll, so an open held back by the interval happens once it has passed.
    private func considerOpening() {
        guard let openSheet else { return }
        let waiting = Set(state.picks.map { "pick:" + $0.pick } + state.prompts.map { "prompt:" + $0.prompt })
        switch opening.decide(waiting: waiting, pageOpen: !subscribers.isEmpty, now: .now) {
        case .open: openSheet()
        case .probePages: keepAlive()
        case .nothing: break
        }
    }

    private func publish() {
        let message = Self.message(state)
        for subscriber in subscribers.values { subscriber.yield(message) }
    }

    private func keepAlive() {
        for subscriber in subscribers.values { subscriber.yield(": keep-alive\n\n") }
    }

    static func message(_ state: State) -> String {
        "event: state\ndata: \(Surface.json(state))\n\n"
    }

    /// Long-polls both services until the task is cancelled. A long poll returns at once while
    /// anything is pending, so an unchanged, non-empty list is polled a few times a second instead.
    nonisolated func follow(owner: OwnerSurface, settings: OwnerSettings) async {
        await withTaskGroup(of: Void.self) { group in
            // A long poll wakes when something arrives, not when it goes: while anything is shown,
            // look without waiting (a few times a second) so answered picks leave the page at once.
            group.addTask {
                await self.poll {
                    let wait: Duration = await self.state.picks.isEmpty ? .seconds(20) : .zero
                    await self.set(picks: try await owner.pendingPicks(waitingUpTo: wait))
                }
            }
            group.addTask {
                await self.poll {
                    let wait: Duration = await self.state.prompts.isEmpty ? .seconds(20) : .zero
                    await self.set(prompts: try await settings.prompts(waitingUpTo: wait))
                }
            }
            // The watched folders' imports show on the Library page as the page's own imports do.
            group.addTask {
                while !Task.isCancelled {
                    do {
                        for try await step in owner.watchedImports() { await self.broadcast(event: "import", json: Surface.json(step)) }
                    } catch {
                        guard !Task.isCancelled else { return }
                        self.logger.notice("following the watched folders' imports again in a moment", metadata: ["reason": "\(error)"])
                    }
                    try? await Task.sleep(for: .seconds(2))
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    await self.keepAlive()
                }
            }
        }
    }

    private nonisolated func poll(_ once: @Sendable () async throws -> Void) async {
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do {
                try await once()
            } catch {
                logger.warning("the owner's feed could not reach a service; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
            // Back at once means something is pending: look again shortly, not in a busy loop.
            if ContinuousClock.now - started < .milliseconds(200) { try? await Task.sleep(for: .milliseconds(200)) }
        }
    }
}

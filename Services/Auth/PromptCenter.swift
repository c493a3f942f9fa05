import Foundation
import LightboxProtocol
import LightboxTransport
import Metrics

/// Questions waiting for the owner. Apps that asked wait on them; the owner's surfaces list and
/// answer them. A second request for the same app and question joins the open prompt.
actor PromptCenter {
    enum Outcome: Sendable {
        case status(AuthorizationStatus)
        /// An authorization or location prompt's answer: the status and the location the app has now.
        case access(AuthorizationStatus, location: LocationAccess)
        case selection(added: [String], addedAlbums: [String])
        case timedOut
        /// Withdrawn without an answer (the service is stopping); the sentence says why.
        case withdrawn(String)
    }

    private struct Pending {
        var prompt: OwnerPrompt
        /// Requests answered from outside their handler, told the outcome once.
        var callbacks: [@Sendable (Outcome) -> Void] = []
        /// When the prompt times out, until it is answered.
        var expiry: Deadlines.Token?

        func finish(_ outcome: Outcome) {
            for callback in callbacks { callback(outcome) }
        }
    }

    private var pending: [String: Pending] = [:] {
        didSet { pendingGauge.record(pending.count) }
    }
    private let pendingGauge = Gauge(label: "lightbox_pending_prompts")
    private var ownerWatchers: [UUID: CheckedContinuation<Void, Never>] = [:]
    /// How long a prompt stays open; then it is withdrawn and whoever waits gets `timedOut`.
    let timeout: Duration
    private let deadlines: Deadlines

    init(timeout: Duration, deadlines: Deadlines) {
        self.timeout = timeout
        self.deadlines = deadlines
    }

    /// The open prompt for this app and question, or a new one. `then` is called once with its
    /// outcome (registered in the same step, so no answer can slip in before it).
    func open(kind: OwnerPrompt.Kind, app: String, appName: String, level: AccessLevel?, usageDescription: String?,
              selection: [String], albums: [String] = [], onLaunch: Bool = false, location: LocationAccess? = nil,
              then callback: (@Sendable (Outcome) -> Void)? = nil) async -> OwnerPrompt {
        // A second delete request is its own question (other assets), never joined to an open one.
        if kind != .deleteAssets, let existing = pending.first(where: { $0.value.prompt.app == app && $0.value.prompt.kind == kind && $0.value.prompt.level == level }) {
            if let callback { pending[existing.key]?.callbacks.append(callback) }
            // A request joining an open prompt may ask for more location than the first.
            if let location, location > (existing.value.prompt.location ?? LocationAccess.none) { pending[existing.key]?.prompt.location = location }
            return pending[existing.key]?.prompt ?? existing.value.prompt
        }
        let prompt = OwnerPrompt(prompt: "prompt-" + SecureRandom.token(bytes: 9), kind: kind, app: app, appName: appName,
                                 level: level, usageDescription: usageDescription, selection: selection, createdAt: Date(),
                                 onLaunch: onLaunch ? true : nil, albums: albums.isEmpty ? nil : albums,
                                 location: location.flatMap { $0 == .none ? nil : $0 })
        pending[prompt.prompt] = Pending(prompt: prompt, callbacks: callback.map { [$0] } ?? [])
        for watcher in ownerWatchers.values { watcher.resume() }
        ownerWatchers.removeAll()
        let id = prompt.prompt
        let expiry = await deadlines.schedule(after: timeout) { [self] in await resolve(id, with: .timedOut) }
        // Answered meanwhile: its timeout goes with it.
        if pending[id] == nil { await deadlines.cancel(expiry) } else { pending[id]?.expiry = expiry }
        return prompt
    }

    func prompt(_ id: String) -> OwnerPrompt? { pending[id]?.prompt }

    /// Withdraws every open prompt; whoever waits is told `reason`.
    func cancelAll(because reason: String) async {
        let withdrawn = pending.values
        pending.removeAll()
        for prompt in withdrawn {
            prompt.finish(.withdrawn(reason))
            if let expiry = prompt.expiry { await deadlines.cancel(expiry) }
        }
    }

    /// Removes a prompt and hands its answer to everyone waiting on it.
    func resolve(_ id: String, with outcome: Outcome) async {
        guard let prompt = pending.removeValue(forKey: id) else { return }
        prompt.finish(outcome)
        if let expiry = prompt.expiry { await deadlines.cancel(expiry) }
    }

    func all() -> [OwnerPrompt] {
        pending.values.map(\.prompt).sorted { $0.createdAt < $1.createdAt }
    }

    /// Returns once a prompt is pending or `timeout` has passed (the owner's long poll).
    func waitForPrompts(upTo timeout: Duration) async {
        guard pending.isEmpty, timeout > .zero else { return }
        let key = UUID()
        let end = await deadlines.schedule(after: timeout) { [self] in await wakeOwner(key) }
        // A prompt may have come while the deadline was set.
        if pending.isEmpty { await withCheckedContinuation { ownerWatchers[key] = $0 } }
        await deadlines.cancel(end)
    }

    private func wakeOwner(_ key: UUID) {
        ownerWatchers.removeValue(forKey: key)?.resume()
    }
}

import Foundation
import LightboxObjectStore
import Logging
import Metrics
import Synchronization

/// The `DerivativeStore` as the local derivative cache (`DerivativeCache`) uses it: looked up before a
/// derivative is made, and given every derivative made here, uploaded in the background once the
/// file is complete (`uploadPending`) so that a request never waits for an upload.
///
/// A store that is down or slow costs a request at most one bounded wait (`S3Timeouts`): after a
/// failure the store is left alone for `pause`, the derivative is made locally meanwhile, and
/// the uploads wait in `pending` (at most `pendingLimit` names; more are skipped, with a log line)
/// until it answers again.
final class SharedDerivatives: Sendable {
    let store: any DerivativeStore
    /// Names of derivatives made here and not uploaded yet.
    static let pendingLimit = 10_000
    /// How long the store is left alone after it failed to answer.
    let pause: Duration
    private let logger: Logger

    private struct State {
        var pending: [String] = []
        var pendingNames: Set<String> = []
        var unavailableUntil: ContinuousClock.Instant?
        /// Whether uploads are being skipped (said once until the queue has room again).
        var isSkipping = false
    }

    private let state = Mutex(State())
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private static let fetched = Counter(label: "lightbox_derivatives_fetched_total")
    private static let uploaded = Counter(label: "lightbox_derivatives_uploaded_total")
    private static let failures = Counter(label: "lightbox_derivative_store_failures_total")

    init(store: any DerivativeStore, pause: Duration = .seconds(30), logger: Logger) {
        self.store = store
        self.pause = pause
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether the store failed lately and is being left alone.
    var isPaused: Bool {
        state.withLock { state in state.unavailableUntil.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Writes the stored derivative `name` to `destination`; false when the store has none, or did
    /// not answer (then it is left alone for `pause`, and the caller makes the derivative itself).
    func fetch(_ name: String, to destination: URL) async -> Bool {
        guard !isPaused else { return false }
        do {
            guard try await store.fetch(name, to: destination) else { return false }
            Self.fetched.increment()
            return true
        } catch {
            unlink(destination.path)
            // A request given up is no sign of the store's health.
            if !Task.isCancelled { failed(error, doing: "fetch \(name); making it here instead") }
            return false
        }
    }

    /// Asks for the complete derivative `name` (in the local cache) to be uploaded.
    func upload(_ name: String) {
        let (accepted, startsSkipping) = state.withLock { state -> (Bool, Bool) in
            guard !state.pendingNames.contains(name) else { return (true, false) }
            guard state.pending.count < Self.pendingLimit else {
                defer { state.isSkipping = true }
                return (false, !state.isSkipping)
            }
            state.isSkipping = false
            state.pending.append(name)
            state.pendingNames.insert(name)
            return (true, false)
        }
        if accepted { wake.yield() }
        if startsSkipping {
            logger.warning("skipping uploads of derivatives: \(Self.pendingLimit) wait for the object store already; other pickers will make them again",
                           metadata: ["derivative": "\(name)"])
        }
    }

    /// Uploads the complete derivative at `file` as `name` at once, for other pickers waiting to fetch
    /// it; false when the store did not take it (it is then left pending, like `upload`'s).
    @discardableResult
    func uploadNow(_ name: String, from file: URL) async -> Bool {
        guard !isPaused else {
            upload(name)
            return false
        }
        do {
            try await store.store(name, from: file)
            Self.uploaded.increment()
            return true
        } catch {
            if !Task.isCancelled { failed(error, doing: "upload \(name); pickers waiting for it make it themselves") }
            upload(name)
            return false
        }
    }

    /// Derivatives waiting for their upload.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Uploads the pending derivatives one after another from `cache` (which keeps each file while
    /// it is read; one evicted meanwhile is skipped), until cancelled. A store that fails keeps the
    /// derivative pending, tried again after `pause`.
    func uploadPending(from cache: DerivativeCache) async {
        let store = self.store
        for await _ in wakeUps {
            while !Task.isCancelled, let name = state.withLock({ $0.pending.first }) {
                if let until = state.withLock({ $0.unavailableUntil }), ContinuousClock.now < until {
                    try? await Task.sleep(until: until, clock: .continuous)
                    continue
                }
                do {
                    if try await cache.withExistingFile(named: name, { try await store.store(name, from: $0) }) != nil {
                        Self.uploaded.increment()
                    } else {
                        logger.debug("not uploading a derivative evicted before its upload", metadata: ["derivative": "\(name)"])
                    }
                    done(name)
                } catch is CancellationError {
                    return
                } catch let error as ObjectStoreError where error.code == .timeout || error.code == .busy || error.code == .cancelled {
                    failed(error, doing: "upload \(name); trying again later")
                } catch {
                    done(name)
                    logger.error("could not upload a derivative; other pickers will make it again", metadata: [
                        "derivative": "\(name)", "reason": "\(error)",
                    ])
                }
            }
            if Task.isCancelled { return }
        }
    }

    private func done(_ name: String) {
        state.withLock { state in
            state.pendingNames.remove(name)
            if let index = state.pending.firstIndex(of: name) { state.pending.remove(at: index) }
        }
    }

    /// Leaves the store alone for `pause` after it failed, saying so once per pause.
    private func failed(_ error: any Error, doing: String) {
        Self.failures.increment()
        let isNew = state.withLock { state in
            let wasPaused = state.unavailableUntil.map { ContinuousClock.now < $0 } ?? false
            state.unavailableUntil = .now + pause
            return !wasPaused
        }
        let message = (error as? ObjectStoreError)?.message ?? "\(error)"
        if isNew {
            logger.warning("the derivative store failed; derivatives are made here and uploaded later", metadata: [
                "doing": "\(doing)", "reason": "\(message)", "pause": "\(pause)",
            ])
        }
    }
}

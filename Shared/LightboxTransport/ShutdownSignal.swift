import Dispatch
import Foundation
import Synchronization

/// Tells a service's `run` when to stop: on SIGINT / SIGTERM, or when triggered in code.
public final class ShutdownSignal: Sendable {
    private struct State {
        var isTriggered = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let retainedSources = Mutex<SignalSources?>(nil)

    public init() {}

    /// A signal triggered by SIGINT or SIGTERM (their default handlers are replaced).
    public static func onTerminationSignals() -> ShutdownSignal {
        let shutdown = ShutdownSignal()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { shutdown.trigger() }
            source.resume()
            return source
        }
        shutdown.retainedSources.withLock { $0 = SignalSources(sources: sources) }
        return shutdown
    }

    public func trigger() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isTriggered = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    public var isTriggered: Bool { state.withLock { $0.isTriggered } }

    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.isTriggered { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}

/// Keeps the signal sources alive; never touched again after set-up.
private final class SignalSources: @unchecked Sendable {
    let sources: [DispatchSourceSignal]
    init(sources: [DispatchSourceSignal]) { self.sources = sources }
}

import LightboxProtocol
import Synchronization

/// Handler slots by who asks. Each app has its own small allowance inside a pool shared by all
/// apps; the owner and each service have their own allowance outside that pool, so no flood of
/// app requests can keep the owner's surfaces or the other service waiting.
final class RequestAllowance: Sendable {
    struct Limits: Sendable {
        var perApp: Int
        var allApps: Int
        var perPrivileged: Int
    }

    private struct State {
        var running: [Principal: Int] = [:]
        var apps = 0
    }

    let limits: Limits
    private let state = Mutex(State())

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// Takes a slot for `principal`, or says why there is none.
    func enter(_ principal: Principal) -> LightboxError? {
        state.withLock { state in
            let running = state.running[principal, default: 0]
            switch principal {
            case .app(let app):
                guard running < limits.perApp else {
                    return LightboxError(.busy, "App \(app) already has \(running) requests in flight, its limit; wait for answers before sending more.")
                }
                guard state.apps < limits.allApps else {
                    return LightboxError(.busy, "The service is handling \(state.apps) requests from apps, its limit; try again in a moment.")
                }
                state.apps += 1
            case .owner, .service, .portal:
                guard running < limits.perPrivileged else {
                    return LightboxError(.busy, "\(principal) already has \(running) requests in flight, its limit; wait for answers before sending more.")
                }
            }
            state.running[principal] = running + 1
            return nil
        }
    }

    func leave(_ principal: Principal) {
        state.withLock { state in
            let running = state.running[principal, default: 1] - 1
            state.running[principal] = running > 0 ? running : nil
            if case .app = principal { state.apps -= 1 }
        }
    }

    /// Requests in flight for `principal` (for tests and logs).
    func running(_ principal: Principal) -> Int {
        state.withLock { $0.running[principal, default: 0] }
    }
}

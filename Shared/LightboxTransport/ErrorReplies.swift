import Dispatch
import LightboxProtocol
import Logging

extension Responder {
    /// Runs a handler's body. A thrown error becomes its wire form here and only here
    /// (`LightboxError(converting:)`): its own conversion, or `internal`, so one bad request never
    /// stops the service. A cause behind the wire error is logged, never sent.
    /// Each request is counted and timed by operation and outcome (RequestMetrics).
    public func answering(_ request: IncomingRequest, service: String, _ body: () async throws -> Void) async {
        let start = DispatchTime.now()
        var outcome = "ok"
        do {
            try await body()
        } catch {
            let wire = LightboxError(converting: error, fallback: "\(service) failed to handle \(request.op); see its log.")
            outcome = wire.code.rawValue
            if let cause = wire.cause {
                request.logger.log(level: wire.code == .internal ? .error : .notice, "request failed",
                                   metadata: ["code": "\(wire.code)", "error": "\(cause)"])
            }
            fail(wire)
        }
        RequestMetrics.record(service: service, op: request.op, outcome: outcome, since: start)
        // Checked first: the request's logger is made only when it will be used, and services
        // seldom log at debug.
        if request.logsDebug {
            request.logger.debug("handled", metadata: ["outcome": "\(outcome)"])
        }
    }
}

extension IncomingRequest {
    /// The connection the request came on, as text.
    public var connectionID: String {
        peer.lowercaseHex
    }

    /// The connection and the launch it said it belongs to.
    public var origin: ConnectionLaunch {
        ConnectionLaunch(connection: connectionID, launch: launch)
    }
}

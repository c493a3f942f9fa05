import LightboxProtocol
import Logging

extension Responder {
    /// Runs a handler's body. A `LightboxError` becomes its error reply; any other error is logged and
    /// answered with `internal`, so one bad request never stops the service.
    public func answering(_ request: IncomingRequest, service: String, logger: Logger, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch let error as LightboxError {
            fail(error)
        } catch {
            logger.error("request failed", metadata: ["op": "\(request.op)", "error": "\(error)"])
            fail(LightboxError(.internal, "\(service) failed to handle \(request.op); see its log."))
        }
    }
}

extension IncomingRequest {
    /// Refuses anyone but the owner's surfaces.
    public func requireOwner() throws(LightboxError) {
        guard principal == .owner else {
            throw LightboxError(.notAuthorized, "\(op) is for the owner's surfaces only.")
        }
    }
}

extension IncomingRequest {
    /// The calling app's id, or `notAuthorized` for the owner and services.
    public func requireApp() throws(LightboxError) -> String {
        guard let app = principal.appID else {
            throw LightboxError(.notAuthorized, "\(op) is for apps; connect with a registered app key.")
        }
        return app
    }

    /// Refuses anyone but Lightbox's own services.
    public func requireService() throws(LightboxError) {
        guard case .service = principal else {
            throw LightboxError(.notAuthorized, "\(op) is for Lightbox services only.")
        }
    }

    /// The connection the request came on, as text: a new connection is a new launch of the app.
    public var connectionID: String {
        peer.map { String(format: "%02x", $0) }.joined()
    }
}

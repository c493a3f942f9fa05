import Foundation
import LightboxProtocol
import Logging

/// Turns each received message into a running handler or an error reply, on the event loop of the
/// connection it came on: a request reaches its handler without passing through the server's I/O
/// thread. Only stream credit and cancel go on to the I/O thread, which owns the streams.
final class RequestIntake: Sendable {
    private let maximumMessageBytes: Int
    private let logger: Logger
    private let outbox: ServerOutbox
    private let inFlight: RequestAllowance
    private let handlers: RunningHandlers
    private let draining: Flag
    private let handler: RouterServer.Handler

    init(maximumMessageBytes: Int, logger: Logger, outbox: ServerOutbox, inFlight: RequestAllowance, handlers: RunningHandlers,
         draining: Flag, handler: @escaping RouterServer.Handler) {
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
        self.outbox = outbox
        self.inFlight = inFlight
        self.handlers = handlers
        self.draining = draining
        self.handler = handler
    }

    /// Starts the message's handler on `executor` (its connection's event loop) or answers it;
    /// returns the stream-control requests the I/O thread takes.
    func take(_ message: ReceivedMessage, executor: (any TaskExecutor)? = nil) -> IncomingRequest? {
        guard let peer = message.frames.first else { return nil }
        // A peer dropped for not reading gets nothing more; its requests are not handled.
        guard !outbox.peers.isGone(peer) else { return nil }
        guard message.frames.count >= 2 else {
            refuse(peer: peer, id: "", LightboxError(.badRequest, "A request needs a JSON header frame; this message had none."))
            return nil
        }
        let header = message.frames[1]
        if message.isOversized {
            let id = (try? RequestHead.read(from: header))?.id ?? ""
            refuse(peer: peer, id: id, LightboxError(.badRequest, """
                This message was \(message.totalBytes) bytes in \(message.frameCount - 1) frames; a request may carry at most \
                \(maximumMessageBytes) bytes in all its frames together. It was discarded; send less per request.
                """))
            return nil
        }
        let head: RequestHead
        do {
            head = try RequestHead.read(from: header)
        } catch {
            refuse(peer: peer, id: "", LightboxError(.badRequest, "The header frame is not a JSON object with v, id, op and body (\(Self.describe(error)))."))
            return nil
        }
        let id = head.id ?? ""
        guard let version = head.v, version == protocolVersion else {
            let said = head.v.map { "version \($0)" } ?? "no version"
            refuse(peer: peer, id: id, LightboxError(.unsupportedVersion, "The header says \(said); this service speaks version \(protocolVersion) (\"v\":\(protocolVersion))."))
            return nil
        }
        guard let op = head.op, !id.isEmpty else {
            refuse(peer: peer, id: id, LightboxError(.badRequest, "The header needs a non-empty \"id\" and an \"op\"."))
            return nil
        }
        guard let userID = message.userID, let principal = Principal(userId: userID) else {
            refuse(peer: peer, id: id, LightboxError(.notAuthorized, "This connection has no authenticated identity."))
            return nil
        }
        let request = IncomingRequest(principal: principal, id: id, op: op, header: header,
                                      attachments: Array(message.frames.dropFirst(2)), peer: peer,
                                      peerCredentials: message.credentials, logger: logger)
        switch op {
        case .streamCredit, .streamCancel:
            return request
        default:
            start(request, peer: peer, executor: executor)
            return nil
        }
    }

    private func start(_ request: IncomingRequest, peer: Data, executor: (any TaskExecutor)?) {
        let responder = Responder(outbox: outbox, peer: peer, requestID: request.id, logger: request.logger)
        let principal = request.principal
        if draining.isSet {
            RequestMetrics.refused(code: .busy)
            responder.fail(LightboxError(.busy, "This service is shutting down; try again when it is back."))
            return
        }
        if let refusal = inFlight.enter(principal) {
            RequestMetrics.refused(code: refusal.code)
            responder.fail(refusal)
            return
        }
        let handler = self.handler
        let inFlight = self.inFlight
        handlers.start(on: executor) {
            await handler(request, responder)
            inFlight.leave(principal)
        }
    }

    private func refuse(peer: Data, id: String, _ error: LightboxError) {
        logger.info("refused a request", metadata: ["code": "\(error.code)", "id": "\(id)"])
        RequestMetrics.refused(code: error.code)
        Responder(outbox: outbox, peer: peer, requestID: id, logger: logger).fail(error)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError { return DecodingError.describe(error) }
        return "\(error)"
    }
}

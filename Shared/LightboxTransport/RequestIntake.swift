import Foundation
import LightboxProtocol
import Logging

/// Turns each received message into a running handler or an error reply, on the event loop of the
/// connection it came on. Stream credit and cancel are handed back to the connection, which owns its streams.
final class RequestIntake: Sendable {
    private let maximumMessageBytes: Int
    private let logger: Logger
    private let streams: ActiveStreamCount
    private let inFlight: RequestAllowance
    private let handlers: RunningHandlers
    private let draining: Flag
    private let handler: RouterServer.Handler

    init(maximumMessageBytes: Int, logger: Logger, streams: ActiveStreamCount, inFlight: RequestAllowance, handlers: RunningHandlers,
         draining: Flag, handler: @escaping RouterServer.Handler) {
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
        self.streams = streams
        self.inFlight = inFlight
        self.handlers = handlers
        self.draining = draining
        self.handler = handler
    }

    /// Starts the message's handler on its connection's event loop, or answers it; returns the
    /// stream-control requests (credit, cancel) for the connection to apply.
    func take(_ message: ReceivedMessage, from connection: PeerConnection) -> IncomingRequest? {
        let peer = connection.id
        guard message.frames.count >= 2 else {
            refuse(connection, id: "", LightboxError(.badRequest, "A request needs a JSON header frame; this message had none."))
            return nil
        }
        let header = message.frames[1]
        if message.isOversized {
            let id = (try? RequestHead.read(from: header))?.id ?? ""
            refuse(connection, id: id, LightboxError(.badRequest, """
                This message was \(message.totalBytes) bytes in \(message.frameCount - 1) frames; a request may carry at most \
                \(maximumMessageBytes) bytes in all its frames together. It was discarded; send less per request.
                """))
            return nil
        }
        let head: RequestHead
        do {
            head = try RequestHead.read(from: header)
        } catch {
            refuse(connection, id: "", LightboxError(.badRequest, "The header frame is not a JSON object with v, id, op and body (\(Self.describe(error)))."))
            return nil
        }
        let id = head.id ?? ""
        guard let version = head.v, version == protocolVersion else {
            let said = head.v.map { "version \($0)" } ?? "no version"
            refuse(connection, id: id, LightboxError(.unsupportedVersion, "The header says \(said); this service speaks version \(protocolVersion) (\"v\":\(protocolVersion))."))
            return nil
        }
        guard let op = head.op, !id.isEmpty else {
            refuse(connection, id: id, LightboxError(.badRequest, "The header needs a non-empty \"id\" and an \"op\"."))
            return nil
        }
        guard let userID = message.userID, let principal = Principal(userId: userID) else {
            refuse(connection, id: id, LightboxError(.notAuthorized, "This connection has no authenticated identity."))
            return nil
        }
        let request = IncomingRequest(principal: principal, id: id, op: op, header: header,
                                      attachments: Array(message.frames.dropFirst(2)), peer: peer,
                                      peerCredentials: message.credentials, launch: message.launch, logger: logger)
        switch op {
        case .streamCredit, .streamCancel:
            return request
        case .hello:
            return answerHello(request, connection: connection)
        default:
            start(request, connection: connection)
            return nil
        }
    }

    /// `service.hello`: answered here, in the order messages came, so every later request of the
    /// connection carries its launch. Returns the request for the connection to keep the launch,
    /// or nil when it was refused: a malformed id, or a second, different one (a connection belongs
    /// to one launch, so an app gets at most one launch per connection, as before launches were said).
    private func answerHello(_ request: IncomingRequest, connection: PeerConnection) -> IncomingRequest? {
        let responder = Responder(connection: connection, streams: streams, requestID: request.id, logger: logger)
        let hello: Hello
        do {
            hello = try request.body(Hello.self)
        } catch {
            responder.fail(error)
            return nil
        }
        guard Hello.isValid(launch: hello.launch) else {
            responder.fail(LightboxError(.badRequest, """
                "launch" must be 1–\(Hello.maximumLaunchLength) ASCII letters, digits, "-" or "_" (a UUID fits); \
                make one per process and send it on every connection.
                """))
            return nil
        }
        if let said = request.launch, said != hello.launch {
            responder.fail(LightboxError(.badRequest, "This connection already said it belongs to launch \(said); a connection belongs to one launch."))
            return nil
        }
        responder.succeed(Empty())
        return request.launch == nil ? request : nil
    }

    private func start(_ request: IncomingRequest, connection: PeerConnection) {
        let responder = Responder(connection: connection, streams: streams, requestID: request.id, logger: request.logger)
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
        handlers.start(on: connection.executor) {
            await handler(request, responder)
            inFlight.leave(principal)
        }
    }

    private func refuse(_ connection: PeerConnection, id: String, _ error: LightboxError) {
        logger.info("refused a request", metadata: ["code": "\(error.code)", "id": "\(id)"])
        RequestMetrics.refused(code: error.code)
        Responder(connection: connection, streams: streams, requestID: id, logger: logger).fail(error)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError { return DecodingError.describe(error) }
        return "\(error)"
    }
}

import Foundation
import LightboxProtocol
import Logging

/// A request as a handler sees it: who sent it (from the CURVE handshake), its id and operation,
/// the JSON header to decode the body from, and any binary frames after it.
public struct IncomingRequest: Sendable {
    public let principal: Principal
    public let id: String
    public let op: OperationName
    public let header: Data
    public let attachments: [Data]
    /// The process that sent it, when it came over a unix socket (`ipc://`): from the kernel.
    public let peerCredentials: PeerCredentials?
    /// The launch (process) of the client its connection said it belongs to (`service.hello`).
    public let launch: String?
    /// The ROUTER's routing id of the connection.
    let peer: Data
    private let serviceLogger: Logger

    /// The service's logger with this request's id, operation and caller as metadata. Made when a
    /// handler logs, which is seldom, so that a request that does not log does not pay for it.
    public var logger: Logger {
        var logger = serviceLogger
        logger[metadataKey: "request"] = "\(id)"
        logger[metadataKey: "op"] = "\(op)"
        logger[metadataKey: "principal"] = "\(principal.userId)"
        return logger
    }

    /// Whether the service logs at debug level (so a handler's debug line is worth making `logger` for).
    public var logsDebug: Bool { serviceLogger.logLevel <= .debug }

    public init(principal: Principal, id: String, op: OperationName, header: Data, attachments: [Data] = [], peer: Data = Data(),
                peerCredentials: PeerCredentials? = nil, launch: String? = nil, logger: Logger = Logger(label: "lightbox.request")) {
        self.peer = peer
        self.launch = launch
        self.peerCredentials = peerCredentials
        serviceLogger = logger
        self.principal = principal
        self.id = id
        self.op = op
        self.header = header
        self.attachments = attachments
    }

    /// The body as `Body`, or a `badRequest` that says which field is wrong.
    public func body<Body: Codable & Sendable>(_ type: Body.Type = Body.self) throws(LightboxError) -> Body {
        do {
            return try RequestEnvelope<Body>.decodeBody(from: header)
        } catch let error as DecodingError {
            throw LightboxError(.badRequest, "The body of \(op) is not valid: \(DecodingError.describe(error))")
        } catch {
            throw LightboxError(.badRequest, "The body of \(op) is not valid: \(error)")
        }
    }
}

extension DecodingError {
    /// One line naming the field and what was wrong with it.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ context: Context) -> String {
            let text = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "the body" : "\"\(text)\""
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "the field \"\(key.stringValue)\" is missing\(parent)"
        case .typeMismatch(let type, let context):
            return "\(path(context)) should be \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context)) should be \(type), not null"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

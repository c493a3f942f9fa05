import Foundation
import LightboxProtocol

/// One reply message as the client received it.
public struct IncomingReply: Sendable {
    public let id: String
    public let status: ReplyStatus
    public let header: Data
    public let attachments: [Data]

    /// The body decoded as `Body`.
    public func body<Body: Codable & Sendable>(_ type: Body.Type = Body.self) throws -> Body {
        do {
            return try WireCoding.decode(ReplyEnvelope<Body>.self, from: header).body
        } catch let error as DecodingError {
            throw LightboxError(.badRequest, "The service's \(status) reply did not match \(Body.self): \(DecodingError.describe(error))")
        }
    }

    /// The wire error of an `error` reply.
    public func error() -> LightboxError {
        (try? body(LightboxError.self)) ?? LightboxError(.internal, "The service sent an error reply without a readable body.")
    }
}

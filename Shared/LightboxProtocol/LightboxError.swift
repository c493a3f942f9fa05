/// A wire error: a code from the closed set, a sentence a person can act on, `details` for
/// programs, and the `cause` behind it. The cause never travels: the request boundary
/// (`Responder.answering`) logs it, so a message need not carry it.
public struct LightboxError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var details: [String: String]?
    /// What failed underneath (a media, storage or transport error); not encoded, not compared.
    public var cause: (any Error)?

    public init(_ code: ErrorCode, _ message: String, details: [String: String]? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.cause = cause
    }

    public var description: String { "\(code): \(message)" }

    private enum CodingKeys: String, CodingKey {
        case code, message, details
    }

    /// Equal when the wire says the same: the cause is for the log.
    public static func == (lhs: LightboxError, rhs: LightboxError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.details == rhs.details
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(details)
    }
}

/// A code from the closed, documented set of wire errors (docs/PROTOCOL.md lists each with its meaning).
///
/// A struct rather than an enum so that adding a code later breaks no client's `switch`.
public struct ErrorCode: WireName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The frames or the JSON header do not form a valid request.
    public static let badRequest = ErrorCode(rawValue: "badRequest")
    /// The header's `v` is not a protocol version this service speaks.
    public static let unsupportedVersion = ErrorCode(rawValue: "unsupportedVersion")
    /// The operation name is not known to the service that received it.
    public static let unknownOp = ErrorCode(rawValue: "unknownOp")
    /// The caller's principal may not perform this operation.
    public static let notAuthorized = ErrorCode(rawValue: "notAuthorized")
    /// The app's manifest lacks the usage description this request needs.
    public static let missingUsageDescription = ErrorCode(rawValue: "missingUsageDescription")
    /// The operation needs limited access and the app does not have it.
    public static let notLimited = ErrorCode(rawValue: "notLimited")
    /// The provider token is not known (never issued, or mistyped).
    public static let tokenUnknown = ErrorCode(rawValue: "tokenUnknown")
    /// The provider token was valid but its lifetime is over.
    public static let tokenExpired = ErrorCode(rawValue: "tokenExpired")
    /// The owner revoked the provider token.
    public static let tokenRevoked = ErrorCode(rawValue: "tokenRevoked")
    /// The requested type is not one the item provider registered (or conforms to).
    public static let typeNotRegistered = ErrorCode(rawValue: "typeNotRegistered")
    /// The named pick, asset, app or file does not exist.
    public static let notFound = ErrorCode(rawValue: "notFound")
    /// The asset's original lives in the cloud tier and network access was not allowed.
    public static let inCloud = ErrorCode(rawValue: "inCloud")
    /// The request was cancelled by its client or by the owner.
    public static let cancelled = ErrorCode(rawValue: "cancelled")
    /// No answer came in time.
    public static let timeout = ErrorCode(rawValue: "timeout")
    /// The service is at capacity; try again later.
    public static let busy = ErrorCode(rawValue: "busy")
    /// A fault inside the service; it keeps serving and logs the details.
    public static let `internal` = ErrorCode(rawValue: "internal")
    /// The media file could not be read or decoded.
    public static let badMedia = ErrorCode(rawValue: "badMedia")

    /// Every code this version documents.
    public static let documented: [ErrorCode] = [
        .badRequest, .unsupportedVersion, .unknownOp, .notAuthorized, .missingUsageDescription,
        .notLimited, .tokenUnknown, .tokenExpired, .tokenRevoked, .typeNotRegistered, .notFound,
        .inCloud, .cancelled, .timeout, .busy, .internal, .badMedia,
    ]
}

/// A wire error: a code from the closed set and a sentence a person can act on.
public struct LightboxError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var details: [String: String]?

    public init(_ code: ErrorCode, _ message: String, details: [String: String]? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code): \(message)" }
}

/// An error of a service's dependency (the object store, the database server) that already knows its
/// wire code and a sentence a person can act on, with the cause underneath kept for the log: it
/// reaches the app as that code and sentence.
public protocol CodedError: LightboxErrorConvertible, CustomStringConvertible, Sendable {
    var code: ErrorCode { get }
    var message: String { get }
    /// The dependency's own reason (an S3 error code, an SQLSTATE, a transport error's text).
    var cause: String? { get }
}

extension CodedError {
    public var description: String {
        cause.map { "\(message) (\($0))" } ?? message
    }

    public var lightboxError: LightboxError {
        LightboxError(code, message, cause: self)
    }
}

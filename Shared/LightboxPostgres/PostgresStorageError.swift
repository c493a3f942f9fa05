import LightboxProtocol

/// Why the PostgreSQL state could not be read or written: a wire code the services can pass on, a
/// sentence a person can act on, and the cause underneath (the server's SQLSTATE, or the connection's
/// error).
public struct PostgresStorageError: CodedError {
    /// `timeout` when the server did not answer in time (down, unreachable, overloaded), `badRequest`
    /// for a location that cannot be used, `internal` for a refusal or failure of the server.
    public let code: ErrorCode
    public let message: String
    public let cause: String?

    public init(code: ErrorCode, message: String, cause: String? = nil) {
        (self.code, self.message, self.cause) = (code, message, cause)
    }
}

import LightboxProtocol

/// Why a request to the object store failed: a wire code the picker can pass on, a sentence a person can
/// act on, and the cause underneath (the store's own XML error code, or the transport's error).
public struct ObjectStoreError: CodedError {
    /// `timeout` when the store did not answer (down, unreachable or too slow), `notFound` for a missing
    /// object, `internal` for a refusal or an answer the client cannot use.
    public let code: ErrorCode
    public let message: String
    /// The store's error code (`NoSuchKey`, `SignatureDoesNotMatch`, `InvalidAccessKeyId`…) or the transport error's text.
    public let cause: String?

    public init(code: ErrorCode, message: String, cause: String? = nil) {
        (self.code, self.message, self.cause) = (code, message, cause)
    }
}

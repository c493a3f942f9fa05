import LightboxProtocol

extension ObjectStoreError: LightboxErrorConvertible {
    /// The error as the app gets it: the same code (`timeout` when the store did not answer) and sentence.
    public var lightboxError: LightboxError {
        LightboxError(code, message, cause: self)
    }
}

/// An error that knows its wire form. The request boundary converts every error thrown by a
/// handler through this one protocol (`LightboxError(converting:)`); handlers throw their own
/// errors and do not map them.
public protocol LightboxErrorConvertible: Error {
    /// The wire error, with `self` as its cause.
    var lightboxError: LightboxError { get }
}

extension LightboxError: LightboxErrorConvertible {
    public var lightboxError: LightboxError { self }
}

extension LightboxError {
    /// The wire error for any error: its own conversion when it has one (a `LightboxError`, a
    /// `MediaError`), else `internal` with `fallback` as the sentence and the error as the cause:
    /// a transport or storage failure says nothing to the app beyond "see the log".
    public init(converting error: any Error, fallback: @autoclosure () -> String) {
        if let convertible = error as? any LightboxErrorConvertible {
            self = convertible.lightboxError
        } else {
            self.init(.internal, fallback(), cause: error)
        }
    }
}

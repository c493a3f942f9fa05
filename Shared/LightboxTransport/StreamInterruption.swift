/// Why a credit-based stream stopped before its end, as the connection that owns it tells its sender.
enum StreamInterruption: Error, Sendable {
    /// The client sent `stream.cancel`.
    case cancelled
    /// The connection closed, or was dropped for not reading.
    case connectionGone
    /// No credit came for the stream's idle limit.
    case idle
    /// A stream with the same request id is already running on this connection.
    case duplicateID
}

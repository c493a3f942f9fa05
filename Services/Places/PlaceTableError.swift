/// Why the place table could not be loaded. The picker then runs without place search and says so.
public struct PlaceTableError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No file at the path.
        case missing
        /// The file could not be read, or is larger than a place table can be.
        case unreadable
        /// The file holds no place.
        case empty
    }

    public var code: Code
    public var message: String
    /// The underlying failure, for the log.
    public var cause: (any Error)?

    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { cause.map { "\(message) (\($0))" } ?? message }
}

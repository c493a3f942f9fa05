/// Why a file could not be read as media. A struct with a code, so new cases break nobody.
public struct MediaError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Not a format Lightbox knows (by content, whatever the file's name says).
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// A known format whose bytes are broken or cut short.
        public static let malformed = Code(rawValue: "malformed")
        /// The file could not be opened or read.
        public static let unreadable = Code(rawValue: "unreadable")
    }

    public var code: Code
    public var message: String
    /// What the picker was doing when it failed, set where that is known (`during(_:)`); it words
    /// the app's error (`lightboxError`).
    public var work: MediaWork?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The same error, as a failure of `work`.
    public func during(_ work: MediaWork) -> MediaError {
        var error = self
        error.work = work
        return error
    }

    public var description: String { message }
}

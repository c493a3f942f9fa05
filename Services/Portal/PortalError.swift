/// Why lightbox-portal could not answer a request as a pick: a code for the log's readers and
/// tests, a sentence for people, and the error underneath. The app only ever sees response 2; the
/// log line says this.
struct PortalError: Error, CustomStringConvertible {
    enum Code: String, Sendable {
        /// The request itself is not one the portal can take (an app id that is not one).
        case badRequest
        /// lightbox-auth or lightbox-picker could not be reached, or refused.
        case servicesUnavailable
        /// The picked items could not be written into the delivery folder.
        case delivery
        /// The session bus refused something (exporting an object, owning the name).
        case bus
    }

    var code: Code
    var message: String
    var cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    var description: String {
        "\(code): \(message)" + (cause.map { " (\($0))" } ?? "")
    }
}

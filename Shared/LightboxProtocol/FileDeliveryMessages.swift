import Foundation

/// `provider.open`: the representation a `provider.load` would stream, handed over instead as a
/// read-only file descriptor on the picker's delivery socket. Only over an ipc:// connection: the
/// ticket is bound to the process the kernel reports at the other end of it.
public struct OpenRequest: Codable, Sendable {
    public var token: String
    /// The type to open as; it must be registered or a supertype of one (default: the first registered).
    public var type: UTType?

    public init(token: String, type: UTType? = nil) {
        self.token = token
        self.type = type
    }
}

/// The reply to `provider.open`: a one-time ticket to present on the delivery socket at `socket`.
public struct FileTicket: Codable, Sendable, Hashable {
    /// Longest ticket line the delivery socket reads, its newline included.
    public static let maximumLineLength = 128

    public var ticket: String
    /// Absolute path of the picker's delivery socket (a unix stream socket).
    public var socket: String
    public var fileSize: Int64
    public var type: UTType
    public var suggestedName: String?
    /// Seconds the ticket stays valid.
    public var expiresIn: Int

    public init(ticket: String, socket: String, fileSize: Int64, type: UTType, suggestedName: String?, expiresIn: Int) {
        self.ticket = ticket
        self.socket = socket
        self.fileSize = fileSize
        self.type = type
        self.suggestedName = suggestedName
        self.expiresIn = expiresIn
    }
}

/// The one line of JSON the delivery socket answers a ticket with; on `ok` the file descriptor
/// travels with it (SCM_RIGHTS).
public struct DeliveryAnswer: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable { case ok, error }

    public var status: Status
    public var fileSize: Int64?
    public var code: ErrorCode?
    public var message: String?

    public static func delivered(fileSize: Int64) -> DeliveryAnswer {
        DeliveryAnswer(status: .ok, fileSize: fileSize, code: nil, message: nil)
    }

    public static func refused(_ error: LightboxError) -> DeliveryAnswer {
        DeliveryAnswer(status: .error, fileSize: nil, code: error.code, message: error.message)
    }

    public init(status: Status, fileSize: Int64?, code: ErrorCode?, message: String?) {
        self.status = status
        self.fileSize = fileSize
        self.code = code
        self.message = message
    }
}

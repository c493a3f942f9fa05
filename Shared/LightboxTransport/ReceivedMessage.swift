import Foundation

/// One multipart message as received, with the principal (`userId`) of the connection it came from.
struct ReceivedMessage: Sendable {
    var frames: [Data]
    var userID: String?
    /// Bytes of every frame together, counted also for frames dropped past the limit.
    var totalBytes = 0
    /// Frames in the message, counted also for frames dropped past the limit.
    var frameCount = 0
    /// True when the frames together passed the receiver's limit: frames after the routing id and
    /// the header (when it is small) were read and dropped, never kept.
    var isOversized = false
    /// The sending process, when the connection is a unix socket.
    var credentials: PeerCredentials?
    /// The launch the connection said it belongs to (`service.hello`), if it did before this message.
    var launch: String?
}

import Foundation
import LightboxProtocol
import LightboxTransport

/// What the client types (PhotoLibrary, PhotoPicker, ImageManager, ItemProvider) need of their
/// way to lightbox-picker: a `DealerConnection` to one picker, or a `FailoverConnection` over
/// several pickers of one library, which the app cannot tell apart beyond a delay.
public protocol PickerConnection: AnyObject, Sendable {
    /// The endpoint requests go to now (a failover connection's changes when a picker dies).
    var endpoint: String { get }

    /// How many times a picker this connection used was lost so far. A change means what a picker
    /// was streaming to it (watches, follows) may be gone: ask for it again.
    var disconnections: Int { get }

    /// Sends a request and returns every reply to it, ending after the final `ok` (an `error`
    /// reply is thrown). `timeout` is the longest wait for the next reply.
    func send<Body: Codable & Sendable>(
        _ op: OperationName, _ body: Body, attachments: [Data], timeout: Duration?, id: String
    ) -> AsyncThrowingStream<IncomingReply, Error>

    /// Sends a message that has no reply (stream credit) to the picker requests go to now.
    func post<Body: Codable & Sendable>(_ op: OperationName, _ body: Body)

    /// How many pickers a broken credit stream may be restarted at besides the one it broke on.
    var spareEndpoints: Int { get }

    /// Closes the connection; requests still waiting end with an error.
    func close()
}

extension PickerConnection {
    public func send<Body: Codable & Sendable>(
        _ op: OperationName, _ body: Body, attachments: [Data] = [], timeout: Duration? = nil
    ) -> AsyncThrowingStream<IncomingReply, Error> {
        send(op, body, attachments: attachments, timeout: timeout, id: UUID().uuidString)
    }

    /// Sends a request and returns the body of its final `ok` reply, ignoring progress and events.
    public func request<Body: Codable & Sendable, Reply: Codable & Sendable>(
        _ op: OperationName, _ body: Body, as reply: Reply.Type = Reply.self, timeout: Duration? = nil
    ) async throws -> Reply {
        for try await message in send(op, body, attachments: [], timeout: timeout, id: UUID().uuidString) where message.status == .ok {
            return try message.body(Reply.self)
        }
        throw LightboxError(.internal, "The service ended \(op) without a final reply.")
    }
}

extension DealerConnection: PickerConnection {
    public var endpoint: String { configuration.endpoint }
    public var spareEndpoints: Int { 0 }
}

import Foundation
import LightboxProtocol
import LightboxTransport

/// The client's half of a credit stream (`provider.load`, `portal.load`): grants `credit` chunks up
/// front and tops the window up as chunks are consumed, so at most `credit` chunks are ever in
/// flight or buffered; checks that the chunks arrive in order and that the completion's size and
/// digest are those of the bytes that arrived.
public enum CreditStream {
    public static func load<Body: Codable & Sendable>(
        _ op: OperationName, _ body: Body, credit: Int, on connection: DealerConnection,
        progress: @Sendable (LoadProgress) -> Void, consume: (Data) throws -> Void
    ) async throws -> StreamCompletion {
        let id = UUID().uuidString
        var hasher = SHA256Hasher()
        var received: Int64 = 0
        var consumedSinceGrant = 0
        for try await reply in connection.send(op, body, timeout: .seconds(30), id: id) {
            switch reply.status {
            case .chunk:
                let header = try reply.body(ChunkHeader.self)
                guard header.offset == received, let data = reply.attachments.first, data.count == header.length else {
                    throw LightboxError(.internal, "The picker sent chunk at \(header.offset) while \(received) bytes had arrived.")
                }
                try consume(data)
                hasher.update(data)
                received += Int64(data.count)
                progress(LoadProgress(completed: received, total: header.total))
                consumedSinceGrant += 1
                if consumedSinceGrant * 2 >= credit {
                    connection.post(.streamCredit, StreamCredit(stream: id, credit: consumedSinceGrant))
                    consumedSinceGrant = 0
                }
            case .ok:
                let completion = try reply.body(StreamCompletion.self)
                guard completion.bytes == received, completion.sha256 == hasher.finalize() else {
                    throw LightboxError(.internal, "The loaded bytes do not match the picker's digest; try the load again.")
                }
                if received == 0 { progress(LoadProgress(completed: 0, total: 0)) }
                return completion
            default:
                continue
            }
        }
        throw LightboxError(.internal, "The load ended without a final reply.")
    }
}

import Foundation
import LightboxProtocol
import LightboxTransport

/// The client's half of a credit stream (`provider.load`, `portal.load`): grants `credit` chunks up
/// front and tops the window up as chunks are consumed, so at most `credit` chunks are ever in
/// flight or buffered; checks that the chunks arrive in order and that the completion's size and
/// digest are those of the bytes that arrived.
public enum CreditStream {
    public static func load<Body: Codable & Sendable>(
        _ op: OperationName, _ body: Body, credit: Int, on connection: any PickerConnection,
        progress: @Sendable (LoadProgress) -> Void, consume: (Data) throws -> Void
    ) async throws -> StreamCompletion {
        var hasher = SHA256Hasher()
        var received: Int64 = 0
        var total: Int64?
        var restarts = 0
        while true {
            let id = UUID().uuidString
            // Where this try's next chunk starts: a restarted load begins again at 0 (the load
            // takes no offset), and the bytes the app already has are skipped.
            var offset: Int64 = 0
            var consumedSinceGrant = 0
            do {
                for try await reply in connection.send(op, body, attachments: [], timeout: .seconds(30), id: id) {
                    switch reply.status {
                    case .chunk:
                        let header = try reply.body(ChunkHeader.self)
                        guard header.offset == offset, header.offset <= received, let data = reply.attachments.first,
                              data.count == header.length else {
                            throw LightboxError(.internal, "The picker sent chunk at \(header.offset) while \(received) bytes had arrived.")
                        }
                        guard total == nil || total == header.total else {
                            throw LightboxError(.internal, "The pickers disagree about the size of the file; try the load again.")
                        }
                        total = header.total
                        offset += Int64(data.count)
                        let fresh = offset > received ? data.suffix(Int(offset - received)) : Data()
                        if !fresh.isEmpty {
                            try consume(fresh)
                            hasher.update(fresh)
                            received += Int64(fresh.count)
                            progress(LoadProgress(completed: received, total: header.total))
                        }
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
            } catch let error as LightboxError where error.cause is PickerLost && restarts < connection.spareEndpoints {
                // The picker died mid-stream: the next one (the failover connection moved on) starts it again.
                restarts += 1
            }
        }
    }
}

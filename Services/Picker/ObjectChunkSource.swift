import LightboxObjectStore
import LightboxProtocol
import LightboxTransport
import NIOCore

/// An object's bytes for a credit stream (`Responder.stream`), read from the object store as the
/// stream asks for them: one GET from the offset asked for, read on while the stream reads on, a new
/// ranged GET when it asks elsewhere. At most one chunk and one HTTP buffer are held: the client stops
/// reading the socket while the stream waits for credit, and `ObjectBody` resumes with a ranged GET
/// when that wait outlasted the connection.
///
/// Unchecked: its state is touched by one read at a time, as `Responder.stream` reads (each read
/// starts once the one before it returned).
final class ObjectChunkSource: ChunkSource, @unchecked Sendable {
    let totalBytes: Int64
    private let open: @Sendable (Range<Int64>) async throws -> ObjectBody
    private var body: ObjectBody.AsyncIterator?
    /// The offset of the next byte `body` gives.
    private var position: Int64 = 0
    private var leftover = ByteBuffer()

    /// A source over the object of `totalBytes` bytes that `open(range)` reads (a ranged GET),
    /// starting with `first`, a body already opened at offset 0 (nil to open on the first read).
    init(totalBytes: Int64, first: ObjectBody?, open: @escaping @Sendable (Range<Int64>) async throws -> ObjectBody) {
        self.totalBytes = totalBytes
        self.open = open
        body = first?.makeAsyncIterator()
    }

    func read(at offset: Int64, upTo maximumCount: Int) async throws -> ByteBuffer {
        let count = Int(min(Int64(maximumCount), max(0, totalBytes - offset)))
        guard count > 0 else { return ByteBuffer() }
        if offset != position || body == nil {
            leftover.clear()
            body = try await open(offset..<totalBytes).makeAsyncIterator()
            position = offset
        }
        var chunk = ByteBuffer()
        chunk.reserveCapacity(count)
        while chunk.readableBytes < count {
            if leftover.readableBytes == 0 {
                var iterator = body!
                let next = try await iterator.next()
                body = iterator
                guard let next else {
                    throw LightboxError(.internal, "The object store ended the original \(totalBytes - position) bytes early.")
                }
                leftover = next
            }
            var piece = leftover.readSlice(length: min(count - chunk.readableBytes, leftover.readableBytes))!
            chunk.writeBuffer(&piece)
        }
        position = offset + Int64(count)
        return chunk
    }
}

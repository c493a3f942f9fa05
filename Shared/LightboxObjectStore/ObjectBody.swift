import AsyncHTTPClient
import NIOCore

/// The bytes of a GET as they arrive, chunk by chunk: never the whole object in memory.
/// A failure while reading is an `ObjectStoreError` (a stall past the idle timeout is `timeout`).
public struct ObjectBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    /// Bytes this answer carries (the range's length for a ranged GET).
    public let contentLength: Int64
    let body: HTTPClientResponse.Body
    let failure: @Sendable (any Error) -> ObjectStoreError

    public struct AsyncIterator: AsyncIteratorProtocol {
        var inner: HTTPClientResponse.Body.AsyncIterator
        let failure: @Sendable (any Error) -> ObjectStoreError

        public mutating func next() async throws -> ByteBuffer? {
            do {
                return try await inner.next()
            } catch {
                throw failure(error)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inner: body.makeAsyncIterator(), failure: failure)
    }
}

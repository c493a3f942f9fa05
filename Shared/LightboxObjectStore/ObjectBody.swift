import AsyncHTTPClient
import NIOCore

/// The bytes of a GET as they arrive, chunk by chunk: never the whole object in memory.
///
/// The client stops reading from the socket while the consumer does not ask for more, so a consumer that
/// pauses longer than the idle timeout (an app withholding credit) finds the connection timed out; the
/// body then resumes with a ranged GET from the first byte not yet delivered, pinned to the same entity
/// tag. It gives up after two resumptions that brought no byte: a failure is then an `ObjectStoreError`
/// (a store that stopped answering is `timeout`).
public struct ObjectBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    /// Bytes this answer carries (the range's length for a ranged GET).
    public let contentLength: Int64
    let body: HTTPClientResponse.Body
    /// The rest of the body from an offset into it.
    let reopen: @Sendable (Int64) async throws -> HTTPClientResponse.Body
    let failure: @Sendable (any Error) -> ObjectStoreError

    static let resumptionsWithoutProgress = 2

    public struct AsyncIterator: AsyncIteratorProtocol {
        var inner: HTTPClientResponse.Body.AsyncIterator
        let contentLength: Int64
        let reopen: @Sendable (Int64) async throws -> HTTPClientResponse.Body
        let failure: @Sendable (any Error) -> ObjectStoreError
        var delivered: Int64 = 0
        var resumptions = 0

        public mutating func next() async throws -> ByteBuffer? {
            while true {
                do {
                    let chunk = try await inner.next()
                    if let chunk {
                        delivered += Int64(chunk.readableBytes)
                        resumptions = 0
                    }
                    return chunk
                } catch {
                    guard delivered < contentLength, resumptions < ObjectBody.resumptionsWithoutProgress, Self.isResumable(error) else {
                        throw failure(error)
                    }
                    resumptions += 1
                    do {
                        inner = try await reopen(delivered).makeAsyncIterator()
                    } catch {
                        throw failure(error)
                    }
                }
            }
        }

        /// The connection timed out or closed under a body that was still coming.
        static func isResumable(_ error: any Error) -> Bool {
            guard let error = error as? HTTPClientError else { return false }
            return error == .readTimeout || error == .remoteConnectionClosed
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inner: body.makeAsyncIterator(), contentLength: contentLength, reopen: reopen, failure: failure)
    }
}

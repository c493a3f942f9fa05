import Foundation
import NIOCore
import NIOFileSystem

/// Bytes a stream sends, read a chunk at a time by the stream's sender.
public protocol ChunkSource: Sendable {
    /// Total size in bytes: the stream ends there (for progress, and a file that grows is cut there).
    var totalBytes: Int64 { get }
    /// Up to `maximumCount` bytes from `offset`; empty at the end.
    func read(at offset: Int64, upTo maximumCount: Int) async throws -> ByteBuffer
}

/// A file, read with swift-nio's file system (its reads run on NIO's blocking-I/O thread pool and
/// resume on the stream's event loop).
struct FileChunkSource: ChunkSource {
    let handle: ReadFileHandle
    let totalBytes: Int64

    func read(at offset: Int64, upTo maximumCount: Int) async throws -> ByteBuffer {
        guard maximumCount > 0 else { return ByteBuffer() }
        return try await handle.readChunk(fromAbsoluteOffset: offset, length: .bytes(Int64(maximumCount)))
    }
}

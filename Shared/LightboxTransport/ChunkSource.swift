import Foundation

/// Bytes a stream sends, read a chunk at a time on the server's I/O thread.
public protocol ChunkSource: Sendable {
    /// Total size in bytes, for progress.
    var totalBytes: Int64 { get }
    /// The next bytes, at most `maximumCount`; empty at the end.
    func read(upTo maximumCount: Int) throws -> Data
    func close()
}

/// A file read front to back. Owned by the I/O thread once the stream starts.
public final class FileChunkSource: ChunkSource, @unchecked Sendable {
    private let handle: FileHandle
    public let totalBytes: Int64

    public init(url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
        let end = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
        totalBytes = Int64(end)
    }

    public func read(upTo maximumCount: Int) throws -> Data {
        try handle.read(upToCount: maximumCount) ?? Data()
    }

    public func close() {
        try? handle.close()
    }
}

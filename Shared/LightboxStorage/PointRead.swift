import GRDB

/// Reads of a few rows by key (an asset, a token, an app's statuses, up to `pointReadLimit`
/// identifiers) are done on the calling thread: SQLite answers them from its page cache in
/// microseconds, less than the two thread hand-offs of an asynchronous read would cost. Pages, scans and counts go through the
/// pool's asynchronous read, so no request holds a thread for long.
extension DatabasePool {
    /// The most keys a point read looks up; larger lists are read asynchronously.
    public static let pointReadLimit = 64

    public func pointRead<T>(_ value: (Database) throws -> T) throws -> T {
        try read(value)
    }

    /// A point read when `isPointRead`, otherwise the pool's asynchronous read.
    public func read<T: Sendable>(inPlaceIf isPointRead: Bool, _ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isPointRead { return try pointRead(value) }
        return try await read(value)
    }
}

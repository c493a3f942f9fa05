import GRDB

/// Reads of a few rows by key (an asset, a token, an app's statuses, up to `pointReadLimit`
/// identifiers) are done on the calling thread: SQLite answers them from its page cache in
/// microseconds, less than the two thread hand-offs of an asynchronous read would cost. Pages, scans
/// and counts go through `detachedRead`, so no request holds a thread for long.
///
/// A point read may block its thread (an event loop) until a reader is free. That is safe only
/// because every other read gives its reader back without needing any caller's thread: GRDB's own
/// `async read` returns the reader only after the awaiting task has resumed, on that task's
/// executor; with the executor blocked in a point read waiting for that very reader, the two wait
/// for each other for ever. So asynchronous reads use `detachedRead`, never GRDB's `async read`.
extension DatabasePool {
    /// The most keys a point read looks up; larger lists are read asynchronously.
    public static let pointReadLimit = 64

    public func pointRead<T>(_ value: (Database) throws -> T) throws -> T {
        try read(value)
    }

    /// An asynchronous read whose reader goes back to the pool on the reader's own queue, as soon
    /// as `value` returns, before the awaiting task resumes.
    public func detachedRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            asyncRead { database in
                continuation.resume(with: Result { try value(database.get()) })
            }
        }
    }

    /// A point read when `isPointRead`, otherwise a `detachedRead`.
    public func read<T: Sendable>(inPlaceIf isPointRead: Bool, _ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isPointRead { return try pointRead(value) }
        return try await detachedRead(value)
    }
}

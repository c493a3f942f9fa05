import Foundation
import GRDB
import Synchronization

/// Reads of a few rows by key (an asset, a token, an app's statuses, up to `pointReadLimit`
/// identifiers) are done on the calling thread: SQLite answers them from its page cache in
/// microseconds, less than the two thread hand-offs of an asynchronous read would cost. Pages, scans
/// and counts go through `detachedRead`, so no request holds a thread for long. A `DatabaseQuery`
/// says which of the two it is, and `read(_:)` serves it accordingly.
///
/// Each thread that makes point reads (an event loop) has a read-only connection of its own
/// (`ThreadReaders`), so a point read never queues behind the pool's readers or its locks: taking
/// and giving back a pool reader weighed on a fetch of one asset, and its event loop stalled
/// whenever another thread held the pool's lock (`bench ops` shows the pipelined fetch rate).
///
/// When no connection of its own can be had, a point read waits for one of the pool's readers,
/// blocking its thread. That is safe only because every other read gives its reader back without
/// needing any caller's thread: GRDB's own `async read` returns the reader only after the awaiting
/// task has resumed, on that task's executor; with the executor blocked in a point read waiting for
/// that very reader, the two wait for each other for ever. So asynchronous reads use
/// `detachedRead`, never GRDB's `async read`.
extension DatabasePool {
    /// The most keys a point read looks up; larger lists are read asynchronously.
    public static let pointReadLimit = 64

    public func pointRead<T>(_ value: (Database) throws -> T) throws -> T {
        if let connection = ThreadReaders.shared.connection(for: self) {
            return try connection.unsafeRead { db in try Self.inSnapshot(db, value) }
        }
        return try read(value)
    }

    /// `value` in one deferred transaction, so all its statements see one snapshot. On a
    /// connection opened read-only this is all GRDB's `read` adds that matters; its guards
    /// (`PRAGMA query_only` on and off around a savepoint, each statement parsed anew) are work a
    /// fetch of one asset need not do. The statements here are compiled once.
    static func inSnapshot<T>(_ db: Database, _ value: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        defer {
            // A read transaction's COMMIT does not fail; an error that already ended it leaves nothing to end.
            if db.isInsideTransaction, (try? db.cachedStatement(sql: "COMMIT").execute()) == nil {
                try? db.execute(sql: "ROLLBACK")
            }
        }
        return try value(db)
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
}

/// Read-only connections to a pool's database, one per pool and thread, for point reads. A thread
/// keeps its connection (and its compiled statements) for as long as the pool lives; the
/// connections of a pool that is gone are closed when the next one is opened. At most
/// `maximumConnections` are open at once: beyond that, point reads use the pool's readers.
public final class ThreadReaders: Sendable {
    public static let shared = ThreadReaders()
    /// The event loops, a few times over.
    public static let maximumConnections = 32

    private struct Key: Hashable {
        var pool: ObjectIdentifier
        var thread: UInt
    }

    private struct Entry {
        /// Weak: the pool's life is its owner's. An identifier that outlived its pool is not that pool.
        weak var pool: DatabasePool?
        var connection: DatabaseQueue
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// Connections open now, of live and gone pools.
    public var count: Int { entries.withLock { $0.count } }

    /// The calling thread's connection to `pool`'s database, opened on first use; nil when there is
    /// no room for another or it cannot be opened.
    public func connection(for pool: DatabasePool) -> DatabaseQueue? {
        let key = Key(pool: ObjectIdentifier(pool), thread: UInt(pthread_self()))
        let existing = entries.withLock { entries in entries[key].flatMap { $0.pool === pool ? $0.connection : nil } }
        if let existing { return existing }
        var configuration = pool.configuration
        configuration.readonly = true
        configuration.label = "point reads"
        guard let opened = try? DatabaseQueue(path: pool.path, configuration: configuration) else { return nil }
        var closing: [DatabaseQueue] = []
        let connection = entries.withLock { entries -> DatabaseQueue? in
            for (key, entry) in entries where entry.pool == nil {
                closing.append(entry.connection)
                entries[key] = nil
            }
            if let entry = entries[key], entry.pool === pool { return entry.connection }
            guard entries.count < Self.maximumConnections else { return nil }
            entries[key] = Entry(pool: pool, connection: opened)
            return opened
        }
        // Closed here, outside the lock (a DatabaseQueue closes its connection when released).
        closing.removeAll()
        return connection
    }
}

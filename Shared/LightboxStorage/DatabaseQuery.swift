import GRDB

/// A read that knows whether it is a point read: a few rows by key, or the first rows of an index,
/// served in place on the calling thread's own connection (`pointRead`); any other read is served
/// by a pool reader, asynchronously (`detachedRead`). The query's shape decides, so its callers
/// never do.
public protocol DatabaseQuery: Sendable {
    associatedtype Value: Sendable

    /// Whether the read is small and bounded enough to be served in place.
    var isPointRead: Bool { get }

    func fetch(_ db: Database) throws -> Value

    /// The value, read in place; nil when the read, once under way, finds it would walk or count
    /// more than a point read does (it is then read from the pool). By default `fetch`.
    func fetchInPlace(_ db: Database) throws -> Value?
}

extension DatabaseQuery {
    public func fetchInPlace(_ db: Database) throws -> Value? {
        try fetch(db)
    }

    /// Whether looking up `count` keys is a point read.
    public static func isPointRead(keyCount count: Int) -> Bool {
        count <= DatabasePool.pointReadLimit
    }

    /// Whether the first `count` rows of an index, and no more, is a point read.
    public static func isPointRead(rowCount count: Int) -> Bool {
        count <= DatabasePool.pointReadLimit
    }
}

extension DatabasePool {
    /// `query`'s value: read in place when it is a point read (and stays one), otherwise by a pool reader.
    public func read<Query: DatabaseQuery>(_ query: Query) async throws -> Query.Value {
        if query.isPointRead, let value = try pointRead(query.fetchInPlace) {
            return value
        }
        return try await detachedRead { db in try query.fetch(db) }
    }
}

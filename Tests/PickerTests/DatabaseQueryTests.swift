import Foundation
import GRDB
import LightboxStorage
import Testing

/// Which connection served a read: a thread's own (a point read) or one of the pool's readers.
private struct ConnectionLabel: DatabaseQuery {
    var isPointRead: Bool
    /// Whether the read, once under way, stays a point read.
    var staysInPlace = true

    func fetch(_ db: Database) throws -> String {
        db.configuration.label ?? "pool"
    }

    func fetchInPlace(_ db: Database) throws -> String? {
        staysInPlace ? try fetch(db) : nil
    }
}

@Suite struct DatabaseQueryTests {
    /// A point read is served in place, on the thread's own connection; any other read, and a point
    /// read that finds it would be larger, by the pool.
    @Test func theQuerySaysWhereItIsRead() async throws {
        let (pool, folder) = try PointReadTests.makePool(named: "query", value: "one")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await pool.read(ConnectionLabel(isPointRead: true)) == "point reads")
        #expect(try await pool.read(ConnectionLabel(isPointRead: false)) != "point reads")
        #expect(try await pool.read(ConnectionLabel(isPointRead: true, staysInPlace: false)) != "point reads")
    }

    @Test func aFewKeysOrRowsAreAPointRead() {
        #expect(ConnectionLabel.isPointRead(keyCount: DatabasePool.pointReadLimit))
        #expect(!ConnectionLabel.isPointRead(keyCount: DatabasePool.pointReadLimit + 1))
        #expect(ConnectionLabel.isPointRead(rowCount: 1) && !ConnectionLabel.isPointRead(rowCount: 1000))
    }
}

import Foundation
import GRDB
import LightboxStorage
import Synchronization
import Testing

/// A record of every kind of value `PositionalRow` reads.
private struct Sample: Equatable, FetchableRecord, TableRecord {
    static let databaseTableName = "sample"
    var name: String
    var count: Int
    var size: Int64
    var ratio: Double?
    var isOn: Bool
    var takenAt: Date
    var note: String?
}

extension Sample: PositionalRecord {
    enum Columns: String, CaseIterable, ColumnExpression {
        case name, count, size, ratio, isOn, takenAt, note
    }

    init(row: inout PositionalRow<Columns>) throws {
        self.init(name: try row.read(.name), count: try row.read(.count), size: try row.read(.size), ratio: try row.read(.ratio),
                  isOn: try row.read(.isOn), takenAt: try row.read(.takenAt), note: try row.read(.note))
    }
}

private final class Changes: Sendable {
    let counts = Mutex<[Int]>([])
}

@Suite struct PositionalRecordTests {
    /// A table with its columns in another order than `Sample.Columns`, and rows whose dates are
    /// stored as GRDB stores them, as a number and as text in another form.
    static func sampleQueue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE sample (note TEXT, name TEXT, isOn INTEGER, size INTEGER, count INTEGER, ratio REAL, takenAt)")
            try db.execute(sql: "INSERT INTO sample VALUES (NULL, 'stored', 1, 5000000000, 3, 0.5, ?)",
                           arguments: [Date(timeIntervalSince1970: 1_700_000_000.125)])
            try db.execute(sql: "INSERT INTO sample VALUES ('n', 'number', 0, -1, 0, NULL, 1700000000.25)")
            try db.execute(sql: "INSERT INTO sample VALUES ('é', 'iso', 0, 0, -4, 1e300, '2024-02-29 23:59:59')")
        }
        return queue
    }

    fileprivate static let expected = [
        Sample(name: "stored", count: 3, size: 5_000_000_000, ratio: 0.5, isOn: true, takenAt: Date(timeIntervalSince1970: 1_700_000_000.125),
               note: nil),
        Sample(name: "number", count: 0, size: -1, ratio: nil, isOn: false, takenAt: Date(timeIntervalSince1970: 1_700_000_000.25), note: "n"),
    ]

    @Test func theSelectListIsTheColumnsInOrder() throws {
        let queue = try Self.sampleQueue()
        #expect(Sample.selectList == "name, count, size, ratio, isOn, takenAt, note")
        try queue.read { db in
            let statement = try db.makeStatement(sql: "SELECT \(Sample.selectList) FROM sample")
            #expect(statement.columnNames == Sample.Columns.allCases.map(\.name))
            // GRDB's query interface selects the same columns, in the same order, whatever the table's order.
            #expect(try Sample.all().makePreparedRequest(db).statement.columnNames == Sample.Columns.allCases.map(\.name))
        }
    }

    /// Read off the statement (`fetchAll(positionally:)`) or through GRDB's rows (its query
    /// interface), a record is the same, each date the very Date GRDB reads.
    @Test func recordsReadTheSameEitherWay() throws {
        let queue = try Self.sampleQueue()
        let (positional, first, byRow, grdbDates) = try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Sample.selectList) FROM sample ORDER BY rowid")
            return (try Sample.fetchAll(positionally: statement), try Sample.fetchOne(positionally: statement),
                    try Sample.order(sql: "rowid").fetchAll(db), try Date.fetchAll(db, sql: "SELECT takenAt FROM sample ORDER BY rowid"))
        }
        #expect(Array(positional.prefix(2)) == Self.expected)
        #expect(first == Self.expected.first)
        #expect(byRow == positional)
        #expect(positional.map(\.takenAt) == grdbDates)
        #expect(positional.last?.note == "é" && positional.last?.ratio == 1e300)
    }

    /// The text a column holds in one record, as stored, comes with the records: a keyset cursor
    /// carries it, and a date read and written again would not be the stored '2024-02-29 23:59:59'.
    @Test func theStoredTextOfOneRecordComesWithTheRecords() throws {
        let queue = try Self.sampleQueue()
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Sample.selectList) FROM sample ORDER BY rowid")
            let (records, iso) = try Sample.fetchAll(positionally: statement, storedTextOf: .takenAt, inRecord: 2)
            #expect(records == (try Sample.fetchAll(positionally: statement)))
            #expect(iso == "2024-02-29 23:59:59")
            #expect(try Sample.fetchAll(positionally: statement, storedTextOf: .name, inRecord: 0).storedText == "stored")
            #expect(try Sample.fetchAll(positionally: statement, storedTextOf: .note, inRecord: 0).storedText == nil)
            #expect(try Sample.fetchAll(positionally: statement, storedTextOf: .name, inRecord: 3).storedText == nil)
        }
    }

    @Test func aNullInARequiredColumnIsAnError() throws {
        let queue = try Self.sampleQueue()
        try queue.write { db in try db.execute(sql: "UPDATE sample SET name = NULL WHERE name = 'number'") }
        try queue.read { db in
            #expect(throws: DatabaseError.self) {
                try Sample.fetchAll(positionally: db.makeStatement(sql: "SELECT \(Sample.selectList) FROM sample"))
            }
            #expect(throws: DatabaseError.self) { try Sample.fetchAll(db) }
        }
    }

    /// GRDB steps the rows: a read whose database access was cancelled stops at its next step
    /// (SQLite alone, with no statement running when it was told, would have read on).
    @Test func aCancelledReadStopsAtItsNextStep() async throws {
        let queue = try Self.sampleQueue()
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let read = Task {
            try await queue.read { db in
                started.signal()
                proceed.wait()
                return try Sample.fetchAll(positionally: db.makeStatement(sql: "SELECT \(Sample.selectList) FROM sample"))
            }
        }
        started.wait()
        read.cancel()
        proceed.signal()
        await #expect(throws: CancellationError.self) { try await read.value }
    }

    /// GRDB sees what a positional read selects: an observation of one is told when its table changes.
    @Test func anObservationOfAPositionalReadSeesItsTable() throws {
        let queue = try Self.sampleQueue()
        let changes = Changes()
        let changed = DispatchSemaphore(value: 0)
        let observation = ValueObservation.tracking { db in
            try Sample.fetchAll(positionally: db.cachedStatement(sql: "SELECT \(Sample.selectList) FROM sample"))
        }
        let cancellable = observation.start(in: queue, scheduling: .async(onQueue: DispatchQueue(label: "observation")),
                                            onError: { _ in }) { samples in
            changes.counts.withLock { $0.append(samples.count) }
            changed.signal()
        }
        defer { cancellable.cancel() }
        // Not timing bounds: without the change noticed, the second value never comes.
        #expect(changed.wait(timeout: .now() + 60) == .success)
        try queue.write { db in try db.execute(sql: "INSERT INTO sample VALUES (NULL, 'new', 0, 0, 0, NULL, 0)") }
        #expect(changed.wait(timeout: .now() + 60) == .success)
        #expect(changes.counts.withLock { $0 } == [3, 4])
    }
}

import GRDB
import GRDBSQLite

/// The records of a statement, stepped by GRDB (a `DatabaseCursor`: GRDB's checks before the first
/// step, and its handling of a failed, interrupted or cancelled one) and read straight off the
/// statement. GRDB's own record cursor would hand each record a `Row`, whose making names every
/// column of the statement again on every run, and whose values are read through generic code; a
/// point read of one record does little else. Inlinable, so that each record type's reading is
/// specialized where it is fetched.
public final class PositionalRecordCursor<Record: PositionalRecord>: DatabaseCursor {
    public typealias Element = Record
    public let _statement: Statement
    public var _isDone = false

    /// A cursor over `statement` (a SELECT of `Record.selectList`) with `arguments` (nil: the ones
    /// it is bound to).
    @inlinable
    public init(_ statement: Statement, arguments: StatementArguments? = nil) throws {
        _statement = statement
        // Resets the statement, binds and checks the arguments.
        try statement.setArguments(arguments ?? statement.arguments)
        assert(statement.columnNames == Record.Columns.allCases.map(\.name), "the statement does not select \(Record.self)'s columns")
    }

    deinit {
        // As GRDB's cursors do, so that a cursor left before its end leaves no read open.
        sqlite3_reset(_statement.sqliteStatement)
    }

    @inlinable
    public func _element(sqliteStatement: SQLiteStatement) throws -> Record {
        var row = PositionalRow<Record.Columns>(statement: sqliteStatement)
        return try Record(row: &row)
    }
}

extension PositionalRecord {
    /// The records of `statement` (a SELECT of `selectList`) with `arguments` (nil: the ones it is bound to).
    @inlinable
    public static func fetchAll(positionally statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        let cursor = try PositionalRecordCursor<Self>(statement, arguments: arguments)
        var records: [Self] = []
        // Each record moved into the list (`forEach` would lend it, and the list keep a copy).
        while let record = try cursor.next() {
            records.append(record)
        }
        return records
    }

    /// The records of `statement`, and the text `column` holds in record number `record` (from 0)
    /// exactly as SQLite stores it, read while the statement is on that row: what a keyset cursor
    /// after that record must carry (a date read back and written again could differ from it).
    @inlinable
    public static func fetchAll(positionally statement: Statement, arguments: StatementArguments? = nil,
                                storedTextOf column: Columns, inRecord record: Int) throws -> (records: [Self], storedText: String?) {
        guard let index = Columns.allCases.firstIndex(where: { $0.name == column.name }) else {
            preconditionFailure("\(column.name) is not one of \(Self.self)'s columns")
        }
        let position = Int32(Columns.allCases.distance(from: Columns.allCases.startIndex, to: index))
        let cursor = try PositionalRecordCursor<Self>(statement, arguments: arguments)
        var records: [Self] = []
        var storedText: String?
        while let next = try cursor.next() {
            if records.count == record { storedText = String.value(cursor._statement.sqliteStatement, at: position) }
            records.append(next)
        }
        return (records, storedText)
    }

    /// The first record of `statement` (a SELECT of `selectList`) with `arguments`, if any.
    @inlinable
    public static func fetchOne(positionally statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        try PositionalRecordCursor<Self>(statement, arguments: arguments).next()
    }
}


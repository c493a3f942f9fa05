import Foundation
import GRDB
import GRDBSQLite

/// One row of a SELECT of `Columns`, read column after column in their order. The rows of a
/// `PositionalRecordCursor` are read straight off the statement GRDB is stepping; a `Row` GRDB
/// made (a query interface fetch, an adapted row) through GRDB's values.
public struct PositionalRow<Columns: CaseIterable & ColumnExpression> {
    @usableFromInline
    enum Source {
        case statement(SQLiteStatement)
        case row(Row)
    }

    @usableFromInline let source: Source
    /// The next column to read.
    @usableFromInline var position: Int32 = 0

    public init(_ row: Row) {
        source = .row(row)
    }

    @inlinable
    init(statement: SQLiteStatement) {
        source = .statement(statement)
    }

    /// The next column's value; `column` names it (and must be the column at this position).
    /// Throws when the column is NULL or holds something that is no `Value`; ask for an optional
    /// when NULL is allowed. Inlined into each record's reading: the reads are most of what a row costs.
    @inlinable @inline(__always)
    public mutating func read<Value: PositionalValue>(_ column: Columns, as type: Value.Type = Value.self) throws -> Value {
        assert(Self.isColumn(column, at: position), "\(column.name) is not column \(position) of \(Columns.self)")
        defer { position += 1 }
        let value = switch source {
        case .statement(let statement): Value.value(statement, at: position)
        case .row(let row): Value.value(row[Int(position)] as DatabaseValue)
        }
        guard let value else {
            throw DatabaseError(message: "column \(column.name) is NULL or not a \(Value.self)")
        }
        return value
    }

    @usableFromInline
    static func isColumn(_ column: Columns, at position: Int32) -> Bool {
        Columns.allCases.dropFirst(Int(position)).first?.name == column.name
    }
}

/// A value `PositionalRow` reads: from the statement being stepped, or from GRDB's value.
public protocol PositionalValue {
    /// Column `index` of the statement's current row; nil when it is NULL or cannot be a `Self`.
    static func value(_ statement: SQLiteStatement, at index: Int32) -> Self?
    /// Column `index` of the statement's current row, known not to be NULL; nil when it cannot be a `Self`.
    static func value(notNull statement: SQLiteStatement, at index: Int32) -> Self?
    /// nil when the value is NULL or cannot be a `Self`.
    static func value(_ databaseValue: DatabaseValue) -> Self?
}

extension PositionalValue {
    @inlinable
    public static func value(_ statement: SQLiteStatement, at index: Int32) -> Self? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : value(notNull: statement, at: index)
    }
}

extension PositionalValue where Self: DatabaseValueConvertible & StatementColumnConvertible {
    @inlinable
    public static func value(notNull statement: SQLiteStatement, at index: Int32) -> Self? {
        Self(sqliteStatement: statement, index: index)
    }

    @inlinable
    public static func value(_ databaseValue: DatabaseValue) -> Self? {
        fromDatabaseValue(databaseValue)
    }
}

extension Int: PositionalValue {}
extension Int64: PositionalValue {}
extension Double: PositionalValue {}
extension Bool: PositionalValue {}

extension String: PositionalValue {
    /// The text and its length as SQLite holds them (in that order, as SQLite asks), without
    /// measuring it again; no text is NULL.
    @inlinable
    public static func value(_ statement: SQLiteStatement, at index: Int32) -> String? {
        guard let characters = sqlite3_column_text(statement, index) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: characters, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
    }

    @inlinable
    public static func value(notNull statement: SQLiteStatement, at index: Int32) -> String? {
        value(statement, at: index)
    }
}

extension Date: PositionalValue {
    /// The Date GRDB reads: text in the form GRDB stores is read by `StorageDate` (GRDB's own
    /// reading goes through Foundation's calendar), anything else by GRDB.
    @inlinable
    public static func value(notNull statement: SQLiteStatement, at index: Int32) -> Date? {
        if sqlite3_column_type(statement, index) == SQLITE_TEXT, let characters = sqlite3_column_text(statement, index),
           let date = StorageDate.date(UnsafeRawBufferPointer(start: characters, count: Int(sqlite3_column_bytes(statement, index)))) {
            return date
        }
        return Date(sqliteStatement: statement, index: index)
    }

    @inlinable
    public static func value(_ databaseValue: DatabaseValue) -> Date? {
        if case .string(var text) = databaseValue.storage,
           let date = text.withUTF8({ StorageDate.date(UnsafeRawBufferPointer($0)) }) {
            return date
        }
        return fromDatabaseValue(databaseValue)
    }
}

extension Optional: PositionalValue where Wrapped: PositionalValue {
    /// `.some(nil)` for NULL; nil for a value that cannot be a `Wrapped`.
    @inlinable
    public static func value(_ statement: SQLiteStatement, at index: Int32) -> Wrapped?? {
        if sqlite3_column_type(statement, index) == SQLITE_NULL { return .some(nil) }
        return value(notNull: statement, at: index)
    }

    @inlinable
    public static func value(notNull statement: SQLiteStatement, at index: Int32) -> Wrapped?? {
        Wrapped.value(notNull: statement, at: index).map { $0 }
    }

    @inlinable
    public static func value(_ databaseValue: DatabaseValue) -> Wrapped?? {
        if databaseValue.isNull { return .some(nil) }
        return Wrapped.value(databaseValue).map { $0 }
    }
}

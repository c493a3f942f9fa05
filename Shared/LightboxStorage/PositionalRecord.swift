import GRDB

/// A record read from a SELECT of its columns by position. `Columns` lists them once, in order (as
/// GRDB spells a record's columns, `enum Columns: String, CaseIterable, ColumnExpression`): the
/// SELECT list (`selectList`, and GRDB's `databaseSelection` for a table record) is derived from
/// it, and `init(row:)` reads the columns in that order, each read naming its column (checked in
/// debug builds). GRDB steps the rows (`PositionalRecordCursor`, or GRDB's own fetches and query
/// interface for a record that is also a `FetchableRecord`), so its tracing, interruption and
/// cancellation see every read.
public protocol PositionalRecord {
    associatedtype Columns: CaseIterable & ColumnExpression

    init(row: inout PositionalRow<Columns>) throws
}

extension PositionalRecord {
    /// The SELECT list of `Columns`, in their order: "a, b, c". Made anew on every use: a statement's
    /// SQL is made of it once (a `static let`), not on every read.
    public static var selectList: String {
        Columns.allCases.map(\.name).joined(separator: ", ")
    }

    /// The names of `Columns` that `table` has no column of: none when a SELECT of `selectList`
    /// from it can read the record (for tests of a schema against its records).
    public static func columnsMissing(from table: String, in db: Database) throws -> [String] {
        let names = Set(try db.columns(in: table).map { $0.name.lowercased() })
        return Columns.allCases.map(\.name).filter { !names.contains($0.lowercased()) }
    }
}

extension TableRecord where Self: PositionalRecord {
    /// GRDB's query interface selects `Columns`, in their order.
    public static var databaseSelection: [any SQLSelectable] {
        Array(Columns.allCases)
    }
}

extension FetchableRecord where Self: PositionalRecord {
    /// A row GRDB made (its query interface, its own fetches), read through GRDB's values.
    public init(row: Row) throws {
        assert(Array(row.columnNames) == Columns.allCases.map(\.name), "the row does not hold \(Self.self)'s columns in order")
        var positional = PositionalRow<Columns>(row)
        try self.init(row: &positional)
    }
}

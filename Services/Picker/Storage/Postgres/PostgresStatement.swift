import Foundation
import PostgresNIO

/// An SQL statement built in pieces, each value bound as a parameter (`$1`, `$2`, …) and never
/// written into the text: how conditions that vary by request (filters, searches, selections,
/// cursors) are put together for PostgreSQL.
struct PostgresStatement: Sendable {
    private(set) var text: String
    private(set) var binds = PostgresBindings()

    init(_ text: String = "") {
        self.text = text
    }

    /// Binds `value`; returns its placeholder.
    mutating func bind(_ value: some PostgresNonThrowingEncodable & Sendable) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// Binds an optional value (NULL for nil); returns its placeholder.
    mutating func bind(_ value: (some PostgresNonThrowingEncodable & Sendable)?) -> String {
        if let value { binds.append(value) } else { binds.appendNull() }
        return "$\(binds.count)"
    }

    mutating func append(_ sql: String) {
        text += sql
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }
}

/// A row's cells read in order, each decoded as the type asked for.
struct PostgresCells {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    mutating func next<Value: PostgresDecodable>(_ type: Value.Type = Value.self) throws -> Value {
        guard let cell = cells.next() else { throw PostgresDecodingFailure.missingColumn }
        return try cell.decode(Value.self)
    }
}

enum PostgresDecodingFailure: Error {
    case missingColumn
    case unknownValue(String)
}

import Foundation
import GRDB
import GRDBSQLite
import LightboxProtocol
import LightboxStorage

/// Reads asset rows in one pass over their columns, by position. GRDB's Decodable path looks every
/// column up by name, case-insensitively, for every row; its positional `Row` subscripts decode
/// each value through generic code that looks up type metadata per column; and its row cursor
/// builds a dictionary of the column names every time a statement runs. Fetches by identifier step
/// the SQLite statement themselves (`read(from:)`), other reads go through `init(row:)`; both share
/// `init(columns:)`.
extension AssetRecord {
    /// Every column, in `AssetField` order: the SELECT list `read(from:)` expects.
    static let columnList = AssetField.allCases.map(\.rawValue).joined(separator: ", ")

    init(row: Row) throws {
        try self.init(columns: RowColumns(row: row))
    }

    /// The records `statement` (a SELECT of `columnList` from the asset table) gives with
    /// `arguments` (nil: the ones it is bound to).
    static func read(from statement: Statement, arguments: StatementArguments? = nil, in db: Database) throws -> [AssetRecord] {
        var records: [AssetRecord] = []
        try StatementColumns.forEachRow(of: statement, arguments: arguments, in: db, fields: AssetField.everyField) { row in
            records.append(try AssetRecord(columns: row))
        }
        return records
    }

    init(columns: some AssetColumns) throws {
        var identifier: String?, contentHash: String?, fileName: String?, storedPath: String?, type: String?
        var mediaType: String?, subtypes = "", pixelWidth: Int?, pixelHeight: Int?, frameCount: Int?, duration: Double?
        var fileSize: Int64 = 0, creationDate: Date?, importedAt: Date?, isInCloud = false, properties = "{}"
        var pairedPath: String?, pairedHash: String?, pairedType: String?
        for (index, field) in columns.fields.enumerated() {
            switch field {
            case .identifier: identifier = columns.text(index)
            case .contentHash: contentHash = columns.text(index)
            case .fileName: fileName = columns.text(index)
            case .storedPath: storedPath = columns.text(index)
            case .type: type = columns.text(index)
            case .mediaType: mediaType = columns.text(index)
            case .subtypes: subtypes = columns.text(index) ?? ""
            case .pixelWidth: pixelWidth = columns.integer(index).map { Int($0) }
            case .pixelHeight: pixelHeight = columns.integer(index).map { Int($0) }
            case .frameCount: frameCount = columns.integer(index).map { Int($0) }
            case .duration: duration = columns.real(index)
            case .fileSize: fileSize = columns.integer(index) ?? 0
            case .creationDate: creationDate = columns.date(index)
            case .importedAt: importedAt = columns.date(index)
            case .isInCloud: isInCloud = (columns.integer(index) ?? 0) != 0
            case .properties: properties = columns.text(index) ?? "{}"
            case .pairedPath: pairedPath = columns.text(index)
            case .pairedHash: pairedHash = columns.text(index)
            case .pairedType: pairedType = columns.text(index)
            case nil: continue
            }
        }
        guard let identifier, let contentHash, let fileName, let storedPath, let type, let mediaType,
              let mediaTypeValue = MediaType(rawValue: mediaType), let creationDate, let importedAt else {
            throw DatabaseError(message: "an asset row lacks a required column or has an unknown media type")
        }
        self.init(identifier: identifier, contentHash: contentHash, fileName: fileName, storedPath: storedPath, type: UTType(type),
                  mediaType: mediaTypeValue, subtypes: subtypes, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
                  frameCount: frameCount, duration: duration, fileSize: fileSize, creationDate: creationDate, importedAt: importedAt,
                  isInCloud: isInCloud, properties: properties, pairedPath: pairedPath, pairedHash: pairedHash,
                  pairedType: pairedType.map { UTType(rawValue: $0) })
    }
}

/// The asset table's columns a record is made of.
enum AssetField: String, CaseIterable {
    case identifier, contentHash, fileName, storedPath, type, mediaType, subtypes, pixelWidth, pixelHeight, frameCount, duration
    case fileSize, creationDate, importedAt, isInCloud, properties, pairedPath, pairedHash, pairedType

    /// Each column's field (nil for one a record does not read), worked out once per statement
    /// rather than by comparing names on every row.
    static func layout(of names: some Sequence<String>) -> [AssetField?] {
        names.map(AssetField.init(rawValue:))
    }

    /// The layout of a SELECT of `AssetRecord.columnList`.
    static let everyField: [AssetField?] = allCases
}

/// One row's columns by position; nil for NULL.
protocol AssetColumns {
    /// The field of each column, by position.
    var fields: [AssetField?] { get }
    func text(_ index: Int) -> String?
    func integer(_ index: Int) -> Int64?
    func real(_ index: Int) -> Double?
    func date(_ index: Int) -> Date?
}

/// A GRDB row's columns.
struct RowColumns: AssetColumns {
    let row: Row
    var fields: [AssetField?] { AssetField.layout(of: row.columnNames) }
    func text(_ index: Int) -> String? { row.hasNull(atIndex: index) ? nil : row[index] as String }
    func integer(_ index: Int) -> Int64? { row.hasNull(atIndex: index) ? nil : row[index] as Int64 }
    func real(_ index: Int) -> Double? { row.hasNull(atIndex: index) ? nil : row[index] as Double }
    func date(_ index: Int) -> Date? { row.hasNull(atIndex: index) ? nil : row[index] as Date }
}

/// The current row of a statement being stepped, read with SQLite's column functions.
struct StatementColumns: AssetColumns {
    /// Kept so that the handle below stays valid.
    let statement: Statement
    let fields: [AssetField?]
    private let handle: SQLiteStatement

    private init(statement: Statement, fields: [AssetField?]) {
        self.statement = statement
        self.fields = fields
        handle = statement.sqliteStatement
    }

    /// Steps `statement` to its end with `arguments` (nil: the ones it is bound to), handing
    /// `body` each row, whose columns are laid out as `fields` says.
    static func forEachRow(of statement: Statement, arguments: StatementArguments?, in db: Database, fields: [AssetField?],
                           _ body: (StatementColumns) throws -> Void) throws {
        try statement.setArguments(arguments ?? statement.arguments)
        let row = StatementColumns(statement: statement, fields: fields)
        // Reset on the way out too, so that an error leaves no read open.
        defer { sqlite3_reset(row.handle) }
        while true {
            let code = sqlite3_step(row.handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                    sql: statement.sql)
            }
            try body(row)
        }
    }

    func text(_ index: Int) -> String? {
        // The text first, then its length, as SQLite asks.
        guard let characters = sqlite3_column_text(handle, Int32(index)) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: characters, count: Int(sqlite3_column_bytes(handle, Int32(index)))), as: UTF8.self)
    }

    func integer(_ index: Int) -> Int64? {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, Int32(index))
    }

    func real(_ index: Int) -> Double? {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL ? nil : sqlite3_column_double(handle, Int32(index))
    }

    /// The Date GRDB reads: text as GRDB stores dates is read by `StorageDate` (GRDB's own reading
    /// goes through Foundation's calendar), anything else by GRDB.
    func date(_ index: Int) -> Date? {
        if sqlite3_column_type(handle, Int32(index)) == SQLITE_TEXT, let characters = sqlite3_column_text(handle, Int32(index)),
           let date = StorageDate.date(UnsafeRawBufferPointer(start: characters, count: Int(sqlite3_column_bytes(handle, Int32(index))))) {
            return date
        }
        return Date(sqliteStatement: handle, index: Int32(index))
    }
}

import Foundation
import GRDB
import GRDBSQLite
import LightboxProtocol
import LightboxStorage

/// Reads asset rows in one pass over their columns, by position. GRDB's Decodable path looks every
/// column up by name, case-insensitively, for every row (a tenth of the picker's time on library
/// calls), and even its positional `Row` subscripts decode each value through generic code that
/// looks up type metadata per column (a sixth of a page's time): pages and fetches read their
/// rows straight from the SQLite statement instead (`fetchAllWithStoredDates`), and
/// other reads go through `init(row:)`. Both share `init(columns:)`.
extension AssetRecord {
    init(row: Row) throws {
        try self.init(columns: RowColumns(row: row))
    }

    /// The records `statement` (a `SELECT *` of the asset table) gives, each with its creation date
    /// as stored (the text a keyset cursor must carry exactly).
    static func fetchAllWithStoredDates(_ statement: Statement, arguments: StatementArguments? = nil) throws
        -> [(record: AssetRecord, storedCreationDate: String)] {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        let columns = StatementColumns(statement: statement)
        let creationDate = columns.fields.firstIndex(of: .creationDate)
        var records: [(AssetRecord, String)] = []
        // Each step leaves the row in the statement, where the columns are read.
        while try rows.next() != nil {
            records.append((try AssetRecord(columns: columns), creationDate.flatMap(columns.text) ?? ""))
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
enum AssetField: String {
    case identifier, contentHash, fileName, storedPath, type, mediaType, subtypes, pixelWidth, pixelHeight, frameCount, duration
    case fileSize, creationDate, importedAt, isInCloud, properties, pairedPath, pairedHash, pairedType

    /// Each column's field (nil for one a record does not read), worked out once per statement
    /// rather than by comparing names on every row.
    static func layout(of names: some Sequence<String>) -> [AssetField?] {
        names.map(AssetField.init(rawValue:))
    }
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

    init(statement: Statement) {
        self.init(statement: statement, fields: AssetField.layout(of: statement.columnNames))
    }

    /// Columns read by position only (`fields` unused), as `AssetSummaryRows` reads them.
    init(statement: Statement, fields: [AssetField?]) {
        self.statement = statement
        self.fields = fields
        handle = statement.sqliteStatement
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

import Foundation
import GRDB
import LightboxProtocol

/// Library pages as apps and the owner see them: the summary's eleven columns, read straight off
/// the SQLite statement into `AssetSummary` values. Reading whole records for a page (the hash,
/// the stored paths and the properties JSON too) through GRDB's row cursor, which builds a
/// column-name dictionary for every page, then making summaries of them, is work a page does not
/// need.
enum AssetSummaryRows {
    /// The columns a page selects, in the order `fetchAll` reads them.
    static let columns = "identifier, fileName, type, mediaType, subtypes, pixelWidth, pixelHeight, duration, fileSize, creationDate, isInCloud"
    private static let creationDateColumn = 9

    /// The summaries `statement` (a SELECT of `columns`) gives with `arguments` (nil: the ones it
    /// is bound to), and the creation date of row `cursorRow` exactly as stored: the text a keyset
    /// cursor after that row must carry.
    static func fetchAll(_ statement: Statement, arguments: StatementArguments?, in db: Database,
                         storedDateOfRow cursorRow: Int) throws -> (summaries: [AssetSummary], cursorDate: String?) {
        var summaries: [AssetSummary] = []
        var cursorDate: String?
        // Read by position below, so no field layout.
        try StatementColumns.forEachRow(of: statement, arguments: arguments, in: db, fields: []) { row in
            if summaries.count == cursorRow { cursorDate = row.text(creationDateColumn) }
            summaries.append(try summary(row))
        }
        return (summaries, cursorDate)
    }

    private static func summary(_ row: StatementColumns) throws -> AssetSummary {
        guard let identifier = row.text(0), let fileName = row.text(1), let type = row.text(2),
              let mediaType = row.text(3).flatMap(MediaType.init(rawValue:)), let creationDate = row.date(creationDateColumn) else {
            throw DatabaseError(message: "an asset row lacks a required column or has an unknown media type")
        }
        return AssetSummary(identifier: identifier, fileName: SafeFileName.make(fileName), type: UTType(type), mediaType: mediaType,
                            subtypes: AssetSummary.subtypes(stored: row.text(4)), pixelWidth: row.integer(5).map { Int($0) },
                            pixelHeight: row.integer(6).map { Int($0) }, duration: row.real(7), fileSize: row.integer(8) ?? 0,
                            creationDate: creationDate, isInCloud: (row.integer(10) ?? 0) != 0)
    }
}

extension AssetSummary {
    /// The subtypes of the catalog's comma-separated column, in name order (as summaries list them).
    static func subtypes(stored text: String?) -> [MediaSubtype] {
        guard let text, !text.isEmpty else { return [] }
        // A few names at most: a list, not a Set (hashing them was most of a page's subtype work).
        var subtypes: [MediaSubtype] = []
        for name in text.split(separator: ",") {
            if let subtype = MediaSubtype(rawValue: String(name)), !subtypes.contains(subtype) { subtypes.append(subtype) }
        }
        if subtypes.count > 1 { subtypes.sort { $0.rawValue < $1.rawValue } }
        return subtypes
    }
}

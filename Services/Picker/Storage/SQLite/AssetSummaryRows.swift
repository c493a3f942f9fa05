import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Library pages as apps and the owner see them: a summary's own columns, read by position, not
/// whole records (the hash, the stored paths and the properties JSON) made into summaries. (Public,
/// as a public type's conformance to a public protocol must be.)
extension AssetSummary: PositionalRecord {
    public enum Columns: String, CaseIterable, ColumnExpression {
        case identifier, fileName, type, mediaType, subtypes, pixelWidth, pixelHeight, duration, fileSize, creationDate, isInCloud
    }

    public init(row: inout PositionalRow<Columns>) throws {
        let identifier: String = try row.read(.identifier), fileName: String = try row.read(.fileName)
        let type: String = try row.read(.type), mediaType = try MediaType(stored: row.read(.mediaType))
        self.init(identifier: identifier, fileName: SafeFileName.make(fileName), type: UTType(type), mediaType: mediaType,
                  subtypes: AssetSummary.subtypes(stored: try row.read(.subtypes)), pixelWidth: try row.read(.pixelWidth),
                  pixelHeight: try row.read(.pixelHeight), duration: try row.read(.duration), fileSize: try row.read(.fileSize),
                  creationDate: try row.read(.creationDate), isInCloud: try row.read(.isInCloud))
    }

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

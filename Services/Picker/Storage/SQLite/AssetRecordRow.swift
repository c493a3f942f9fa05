import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// An asset row in SQLite's `asset` table, written and read through GRDB's records.
extension AssetRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "asset"
}

/// An asset row, read by position from a SELECT of `Columns` (`AssetRecord.selectList`).
extension AssetRecord: PositionalRecord {
    /// The asset table's columns a record is made of, in the order they are selected and read.
    enum Columns: String, CaseIterable, ColumnExpression {
        case identifier, contentHash, fileName, storedPath, type, mediaType, subtypes, pixelWidth, pixelHeight, frameCount, duration
        case fileSize, creationDate, importedAt, isInCloud, properties, pairedPath, pairedHash, pairedType, city, country, camera
    }

    init(row: inout PositionalRow<Columns>) throws {
        let identifier: String = try row.read(.identifier), contentHash: String = try row.read(.contentHash)
        let fileName: String = try row.read(.fileName), storedPath: String = try row.read(.storedPath)
        let type: String = try row.read(.type), mediaType = try MediaType(stored: row.read(.mediaType))
        self.init(identifier: identifier, contentHash: contentHash, fileName: fileName, storedPath: storedPath, type: UTType(type),
                  mediaType: mediaType, subtypes: try row.read(.subtypes), pixelWidth: try row.read(.pixelWidth),
                  pixelHeight: try row.read(.pixelHeight), frameCount: try row.read(.frameCount), duration: try row.read(.duration),
                  fileSize: try row.read(.fileSize), creationDate: try row.read(.creationDate), importedAt: try row.read(.importedAt),
                  isInCloud: try row.read(.isInCloud), properties: try row.read(.properties), pairedPath: try row.read(.pairedPath),
                  pairedHash: try row.read(.pairedHash), pairedType: (try row.read(.pairedType) as String?).map { UTType(rawValue: $0) },
                  city: try row.read(.city), country: try row.read(.country), camera: try row.read(.camera))
    }
}

extension MediaType {
    /// The media type of the catalog's `mediaType` column.
    init(stored text: String) throws {
        guard let mediaType = MediaType(rawValue: text) else {
            throw DatabaseError(message: "an asset row has an unknown media type, \(text)")
        }
        self = mediaType
    }
}

import Foundation
import GRDB
import LightboxProtocol

/// Reads an asset row in one pass over its columns. GRDB's Decodable path looks every column up by
/// name, case-insensitively, for every row: a tenth of the picker's time on library calls.
extension AssetRecord {
    init(row: Row) throws {
        var identifier: String?, contentHash: String?, fileName: String?, storedPath: String?, type: String?
        var mediaType: String?, subtypes = "", pixelWidth: Int?, pixelHeight: Int?, frameCount: Int?, duration: Double?
        var fileSize: Int64 = 0, creationDate: Date?, importedAt: Date?, isInCloud = false, properties = "{}"
        var pairedPath: String?, pairedHash: String?, pairedType: String?
        // Nullable columns are checked for NULL and then read as their plain type: reading them as
        // optionals goes through GRDB's generic Optional path, which looked up type metadata for
        // every column of every row (a sixth of a page's time).
        func text(_ index: Int) -> String? { row.hasNull(atIndex: index) ? nil : row[index] as String }
        func integer(_ index: Int) -> Int? { row.hasNull(atIndex: index) ? nil : row[index] as Int }
        func date(_ index: Int) -> Date? { row.hasNull(atIndex: index) ? nil : row[index] as Date }
        for (index, name) in row.columnNames.enumerated() {
            switch name {
            case "identifier": identifier = text(index)
            case "contentHash": contentHash = text(index)
            case "fileName": fileName = text(index)
            case "storedPath": storedPath = text(index)
            case "type": type = text(index)
            case "mediaType": mediaType = text(index)
            case "subtypes": subtypes = text(index) ?? ""
            case "pixelWidth": pixelWidth = integer(index)
            case "pixelHeight": pixelHeight = integer(index)
            case "frameCount": frameCount = integer(index)
            case "duration": duration = row.hasNull(atIndex: index) ? nil : row[index] as Double
            case "fileSize": fileSize = row.hasNull(atIndex: index) ? 0 : row[index] as Int64
            case "creationDate": creationDate = date(index)
            case "importedAt": importedAt = date(index)
            case "isInCloud": isInCloud = row.hasNull(atIndex: index) ? false : row[index] as Bool
            case "properties": properties = text(index) ?? "{}"
            case "pairedPath": pairedPath = text(index)
            case "pairedHash": pairedHash = text(index)
            case "pairedType": pairedType = text(index)
            default: continue
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

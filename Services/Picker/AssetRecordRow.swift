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
        for (index, name) in row.columnNames.enumerated() {
            switch name {
            case "identifier": identifier = row[index]
            case "contentHash": contentHash = row[index]
            case "fileName": fileName = row[index]
            case "storedPath": storedPath = row[index]
            case "type": type = row[index]
            case "mediaType": mediaType = row[index]
            case "subtypes": subtypes = row[index] ?? ""
            case "pixelWidth": pixelWidth = row[index]
            case "pixelHeight": pixelHeight = row[index]
            case "frameCount": frameCount = row[index]
            case "duration": duration = row[index]
            case "fileSize": fileSize = row[index] ?? 0
            case "creationDate": creationDate = row[index]
            case "importedAt": importedAt = row[index]
            case "isInCloud": isInCloud = row[index] ?? false
            case "properties": properties = row[index] ?? "{}"
            case "pairedPath": pairedPath = row[index]
            case "pairedHash": pairedHash = row[index]
            case "pairedType": pairedType = row[index]
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

import Foundation
import LightboxProtocol
import PostgresNIO

/// Catalog rows as PostgreSQL returns them, read by position from selects of these column lists.
extension AssetRecord {
    static let postgresColumns = """
        identifier, contentHash, fileName, storedPath, type, mediaType, subtypes, pixelWidth, pixelHeight, frameCount, duration, \
        fileSize, creationDate, importedAt, isInCloud, properties, pairedPath, pairedHash, pairedType, city, country, camera
        """

    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        let identifier: String = try cells.next(), contentHash: String = try cells.next(), fileName: String = try cells.next()
        let storedPath: String = try cells.next(), type: String = try cells.next(), mediaType: String = try cells.next()
        guard let media = MediaType(rawValue: mediaType) else { throw PostgresDecodingFailure.unknownValue(mediaType) }
        let subtypes: String = try cells.next(), pixelWidth: Int32? = try cells.next(), pixelHeight: Int32? = try cells.next()
        let frameCount: Int32? = try cells.next(), duration: Double? = try cells.next(), fileSize: Int64 = try cells.next()
        let creationDate: Date = try cells.next(), importedAt: Date = try cells.next(), isInCloud: Bool = try cells.next()
        let properties: String = try cells.next(), pairedPath: String? = try cells.next(), pairedHash: String? = try cells.next()
        let pairedType: String? = try cells.next()
        self.init(identifier: identifier, contentHash: contentHash, fileName: fileName, storedPath: storedPath, type: UTType(type),
                  mediaType: media, subtypes: subtypes, pixelWidth: pixelWidth.map(Int.init), pixelHeight: pixelHeight.map(Int.init),
                  frameCount: frameCount.map(Int.init), duration: duration, fileSize: fileSize, creationDate: creationDate,
                  importedAt: importedAt, isInCloud: isInCloud, properties: properties, pairedPath: pairedPath, pairedHash: pairedHash,
                  pairedType: pairedType.map { UTType(rawValue: $0) }, city: try cells.next(), country: try cells.next(),
                  camera: try cells.next())
    }

    /// The INSERT of this record (nothing when its identifier is taken); returns the identifier when inserted.
    var postgresInsert: PostgresQuery {
        var statement = PostgresStatement("INSERT INTO asset (\(Self.postgresColumns)) VALUES (")
        let values = [
            statement.bind(identifier), statement.bind(contentHash), statement.bind(fileName), statement.bind(storedPath),
            statement.bind(type.identifier), statement.bind(mediaType.rawValue), statement.bind(subtypes),
            statement.bind(pixelWidth.map(Int32.init)), statement.bind(pixelHeight.map(Int32.init)), statement.bind(frameCount.map(Int32.init)),
            statement.bind(duration), statement.bind(fileSize), statement.bind(creationDate), statement.bind(importedAt),
            statement.bind(isInCloud), statement.bind(properties), statement.bind(pairedPath), statement.bind(pairedHash),
            statement.bind(pairedType?.identifier), statement.bind(city), statement.bind(country), statement.bind(camera),
        ]
        statement.append(values.joined(separator: ", ") + ") ON CONFLICT (identifier) DO NOTHING RETURNING identifier")
        return statement.query
    }
}

extension AssetSummary {
    /// A summary's columns, and the creation date as microseconds since 1970 for the page's cursor.
    static let postgresColumns = """
        identifier, fileName, type, mediaType, subtypes, pixelWidth, pixelHeight, duration, fileSize, creationDate, isInCloud, \
        (EXTRACT(EPOCH FROM creationDate) * 1000000)::BIGINT
        """

    /// The summary and its creation date in microseconds (what a cursor after it holds).
    static func postgres(_ row: PostgresRow) throws -> (summary: AssetSummary, microseconds: Int64) {
        var cells = PostgresCells(row)
        let identifier: String = try cells.next(), fileName: String = try cells.next(), type: String = try cells.next()
        let mediaType: String = try cells.next()
        guard let media = MediaType(rawValue: mediaType) else { throw PostgresDecodingFailure.unknownValue(mediaType) }
        let subtypes: String = try cells.next(), pixelWidth: Int32? = try cells.next(), pixelHeight: Int32? = try cells.next()
        let summary = AssetSummary(identifier: identifier, fileName: SafeFileName.make(fileName), type: UTType(type), mediaType: media,
                                   subtypes: AssetSummary.subtypes(stored: subtypes), pixelWidth: pixelWidth.map(Int.init),
                                   pixelHeight: pixelHeight.map(Int.init), duration: try cells.next(), fileSize: try cells.next(),
                                   creationDate: try cells.next(), isInCloud: try cells.next())
        return (summary, try cells.next())
    }
}

extension AssetEdit {
    static let postgresColumns = """
        asset, contentHash, storedPath, type, pixelWidth, pixelHeight, duration, fileSize, properties, app, appName, \
        adjustmentFormat, adjustmentVersion, adjustmentData, editedAt
        """

    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        let asset: String = try cells.next(), contentHash: String = try cells.next(), storedPath: String = try cells.next()
        let type: String = try cells.next(), pixelWidth: Int32? = try cells.next(), pixelHeight: Int32? = try cells.next()
        let duration: Double? = try cells.next(), fileSize: Int64 = try cells.next(), properties: String = try cells.next()
        let app: String = try cells.next(), appName: String? = try cells.next()
        let format: String = try cells.next(), version: String = try cells.next(), data: ByteBuffer = try cells.next()
        self.init(asset: asset, contentHash: contentHash, storedPath: storedPath, type: UTType(type), pixelWidth: pixelWidth.map(Int.init),
                  pixelHeight: pixelHeight.map(Int.init), duration: duration, fileSize: fileSize, properties: properties, app: app,
                  appName: appName, adjustment: AdjustmentData(format: format, version: version, data: Data(buffer: data)),
                  editedAt: try cells.next())
    }
}

extension TokenRecord {
    static let postgresColumns = "tokenHash, app, asset, pick, issuedAt, expiresAt, revokedAt, types, strip"

    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        self.init(tokenHash: try cells.next(), app: try cells.next(), asset: try cells.next(), pick: try cells.next(),
                  issuedAt: try cells.next(), expiresAt: try cells.next(), revokedAt: try cells.next(), types: try cells.next(),
                  strip: try cells.next())
    }
}

extension LibraryChangeLog.Entry {
    static let postgresColumns = "token, kind, asset, album, at, app"

    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        self.init(token: try cells.next(), kind: try cells.next(), asset: try cells.next(), album: try cells.next(), at: try cells.next(),
                  app: try cells.next())
    }
}

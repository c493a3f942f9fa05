import Foundation
import GRDB
import LightboxProtocol

/// An edit's row in SQLite's `assetEdit`.
extension AssetEdit {
    static let columns = "asset, contentHash, storedPath, type, pixelWidth, pixelHeight, duration, fileSize, properties, app, appName, "
        + "adjustmentFormat, adjustmentVersion, adjustmentData, editedAt"
    /// A `?` per column, for an INSERT of `arguments`.
    static let placeholders = columns.split(separator: ",").map { _ in "?" }.joined(separator: ", ")

    init(row: Row) {
        self.init(asset: row["asset"], contentHash: row["contentHash"], storedPath: row["storedPath"], type: UTType(row["type"] as String),
                  pixelWidth: row["pixelWidth"], pixelHeight: row["pixelHeight"], duration: row["duration"], fileSize: row["fileSize"],
                  properties: row["properties"], app: row["app"], appName: row["appName"],
                  adjustment: AdjustmentData(format: row["adjustmentFormat"], version: row["adjustmentVersion"], data: row["adjustmentData"]),
                  editedAt: row["editedAt"])
    }

    var arguments: StatementArguments {
        [asset, contentHash, storedPath, type.identifier, pixelWidth, pixelHeight, duration, fileSize, properties, app, appName,
         adjustment.format, adjustment.version, adjustment.data, editedAt]
    }

    static func fetch(_ db: Database, asset: String) throws -> AssetEdit? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM assetEdit WHERE asset = ?"), arguments: [asset]).map(AssetEdit.init(row:))
    }
}

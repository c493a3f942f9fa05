import Foundation
import GRDB
import LightboxProtocol

/// The owner's view of the library, a page at a time: newest first, filtered in SQL, continued by a
/// keyset cursor (not OFFSET), so the first and the thousandth page cost the same.
extension Catalog {
    func page(filter: PickerFilter?, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetRecord], next: LibraryCursor?) {
        try await database.read { db in
            var conditions: [SQLExpression] = []
            if let filter { conditions.append(filter.sqlCondition) }
            if let cursor {
                // Library order is creationDate DESC, identifier ASC (the `asset_library_order` index).
                conditions.append(SQL(sql: "(creationDate < ? OR (creationDate = ? AND identifier > ?))",
                                      arguments: [cursor.storedDate, cursor.storedDate, cursor.identifier]).sqlExpression)
            }
            var request = AssetRecord.all()
            if !conditions.isEmpty { request = request.filter(conditions.joined(operator: .and)) }
            // One row more than asked tells whether another page follows.
            let rows = try Row.fetchAll(db, request.order(Column("creationDate").desc, Column("identifier").asc).limit(limit + 1))
            let pageRows = rows.prefix(limit)
            let assets = try pageRows.map { try AssetRecord(row: $0) }
            guard rows.count > limit, let last = pageRows.last else { return (assets, nil) }
            let storedDate: String = last["creationDate"]
            return (assets, LibraryCursor(storedDate: storedDate, identifier: last["identifier"]))
        }
    }
}

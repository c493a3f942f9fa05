import Foundation
import GRDB

/// Which of some stored derivatives' names (`RenditionKey.fileName`: `<content hash>.<kind>`) are of
/// content the catalog still has, as an asset's original (local or in the cloud tier: its thumbnails
/// are still shown) or as an app's edit. Read by the content-hash indexes, one query per page.
struct DerivedFileUses {
    var used: Set<String> = []

    init(of names: [String], _ db: Database) throws {
        let hashes = Set(names.map(StoredFileUses.contentHash))
        let list = String(decoding: try JSONEncoder().encode(Array(hashes)), as: UTF8.self)
        let present = Set(try String.fetchAll(db.cachedStatement(sql: """
            SELECT contentHash FROM asset WHERE contentHash IN (SELECT value FROM json_each(?1))
            UNION SELECT contentHash FROM assetEdit WHERE contentHash IN (SELECT value FROM json_each(?1))
            """), arguments: [list]))
        used = Set(names.filter { present.contains(StoredFileUses.contentHash($0)) })
    }
}

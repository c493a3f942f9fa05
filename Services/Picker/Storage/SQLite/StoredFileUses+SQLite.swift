import Foundation
import GRDB

extension StoredFileUses {
    init(of paths: [String], _ db: Database) throws {
        let hashes = Set(paths.map(Self.contentHash))
        let list = String(decoding: try JSONEncoder().encode(Array(hashes)), as: UTF8.self)
        let stills = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT storedPath, isInCloud FROM asset WHERE contentHash IN (SELECT value FROM json_each(?))
            """), arguments: [list])
        while let row = try stills.next() {
            if row[1] as Bool { cloud.insert(row[0]) } else { local.insert(row[0]) }
        }
        // An app's edit (`AssetEdit`) is a file of its own beside the original, named by its own hash.
        local.formUnion(try String.fetchAll(db.cachedStatement(sql: """
            SELECT storedPath FROM assetEdit WHERE contentHash IN (SELECT value FROM json_each(?))
            """), arguments: [list]))
        let movies = String(decoding: try JSONEncoder().encode(paths), as: UTF8.self)
        local.formUnion(try String.fetchAll(db.cachedStatement(sql: """
            SELECT pairedPath FROM asset WHERE pairedPath IN (SELECT value FROM json_each(?))
            """), arguments: [movies]))
    }
}

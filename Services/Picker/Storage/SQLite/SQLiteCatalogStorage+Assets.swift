import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Assets in SQLite: point reads by identifier, inserts, the cloud flag and the date span.
extension SQLiteCatalogStorage {
    func allAssets() async throws -> [AssetRecord] {
        try await database.detachedRead { db in
            try AssetRecord.order(AssetRecord.Columns.creationDate.desc, AssetRecord.Columns.identifier).fetchAll(db)
        }
    }

    func assets(_ identifiers: [String]) async throws -> [String: AssetRecord] {
        try await database.read(try Catalog.AssetsByIdentifier(identifiers))
    }

    func asset(_ identifier: String) async throws -> AssetRecord? {
        try database.pointRead { db in try Catalog.asset(db, identifier) }
    }

    func containsAsset(_ identifier: String) throws -> Bool {
        try database.pointRead { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM asset WHERE identifier = ?)"), arguments: [identifier]) ?? false
        }
    }

    func insert(_ records: [AssetRecord]) async throws -> Set<String> {
        guard !records.isEmpty else { return [] }
        return try await database.write { db in
            var inserted: Set<String> = []
            for record in records {
                try record.insert(db, onConflict: .ignore)
                guard db.changesCount > 0 else { continue }
                inserted.insert(record.identifier)
                try LibraryChangeLog.record(.inserted, asset: record.identifier, in: db)
            }
            return inserted
        }
    }

    func dateSpan() async throws -> (newest: Date?, oldest: Date?) {
        try database.pointRead { db in
            (try Date.fetchOne(db.cachedStatement(sql: "SELECT creationDate FROM asset ORDER BY creationDate DESC, identifier ASC LIMIT 1")),
             try Date.fetchOne(db.cachedStatement(sql: "SELECT creationDate FROM asset ORDER BY creationDate ASC, identifier DESC LIMIT 1")))
        }
    }

    func setInCloud(_ isInCloud: Bool, contentHash: String, storedPath: String) async throws {
        try await database.write { db in
            // Read by the content-hash index.
            let sharing = "contentHash = ? AND storedPath = ?"
            let arguments: StatementArguments = [contentHash, storedPath]
            let identifiers = try String.fetchAll(db, sql: "SELECT identifier FROM asset WHERE \(sharing)", arguments: arguments)
            try db.execute(sql: "UPDATE asset SET isInCloud = ? WHERE \(sharing)", arguments: [isInCloud] + arguments)
            for identifier in identifiers { try LibraryChangeLog.record(.changed, asset: identifier, in: db) }
        }
    }
}

extension Catalog {
    /// Assets by identifier: a point read for a few. Cached statements: compiled once per
    /// connection, however many identifiers. One identifier (the commonest fetch) is bound as it
    /// is, without a JSON list to encode and unpack.
    struct AssetsByIdentifier: DatabaseQuery {
        let count: Int
        /// The one identifier, or the JSON list of them all.
        let argument: String

        init(_ identifiers: [String]) throws {
            count = identifiers.count
            argument = count == 1 ? identifiers[0] : String(decoding: try JSONEncoder().encode(identifiers), as: UTF8.self)
        }

        var isPointRead: Bool { Self.isPointRead(keyCount: count) }

        func fetch(_ db: Database) throws -> [String: AssetRecord] {
            let sql = count == 1 ? Catalog.assetByIdentifier : Catalog.assetsByIdentifier
            let records = try AssetRecord.fetchAll(positionally: db.cachedStatement(sql: sql), arguments: [argument])
            return Dictionary(records.map { ($0.identifier, $0) }) { first, _ in first }
        }
    }

    /// The asset, read inside a read the caller makes (with the token that names it, say).
    static func asset(_ db: Database, _ identifier: String) throws -> AssetRecord? {
        try AssetRecord.fetchOne(positionally: db.cachedStatement(sql: assetByIdentifier), arguments: [identifier])
    }

    private static let assetByIdentifier = "SELECT \(AssetRecord.selectList) FROM asset WHERE identifier = ?"
    private static let assetsByIdentifier = "SELECT \(AssetRecord.selectList) FROM asset WHERE identifier IN (SELECT value FROM json_each(?))"
}

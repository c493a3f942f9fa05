import Foundation
import LightboxPostgres
import LightboxProtocol
import PostgresNIO

/// Assets in PostgreSQL: reads by identifier, import writes, the cloud flag, renames, content changes
/// and removals, each change recorded in the same transaction.
extension PostgresCatalogStorage {
    func allAssets() async throws -> [AssetRecord] {
        try await rows("read the catalog", "SELECT \(unescaped: AssetRecord.postgresColumns) FROM asset ORDER BY creationDate DESC, identifier", AssetRecord.init(postgres:))
    }

    func assets(_ identifiers: [String]) async throws -> [String: AssetRecord] {
        guard !identifiers.isEmpty else { return [:] }
        var statement = PostgresStatement()
        statement.append("SELECT \(AssetRecord.postgresColumns) FROM asset WHERE identifier = ANY(\(statement.bind(identifiers)))")
        let records = try await rows("read assets", statement, AssetRecord.init(postgres:))
        return Dictionary(records.map { ($0.identifier, $0) }) { first, _ in first }
    }

    func asset(_ identifier: String) async throws -> AssetRecord? {
        try await assets([identifier])[identifier]
    }

    func containsAsset(_ identifier: String) throws -> Bool {
        // A pool thread's check inside a longer job: it waits for the query, which runs on the
        // connection pool's own threads.
        try waitingForAnswer { try await self.asset(identifier) != nil }
    }

    func insert(_ records: [AssetRecord]) async throws -> Set<String> {
        guard !records.isEmpty else { return [] }
        return try await writingChanges("record imported assets") { connection, changes in
            var inserted: Set<String> = []
            for record in records {
                guard try await Self.exists(connection.query(record.postgresInsert, logger: logger)) else { continue }
                inserted.insert(record.identifier)
                changes.append(.inserted, asset: record.identifier)
            }
            return inserted
        }
    }

    func dateSpan() async throws -> (newest: Date?, oldest: Date?) {
        let newest = try await rows("read the newest asset's date",
                                    "SELECT creationDate FROM asset ORDER BY creationDate DESC, identifier ASC LIMIT 1") { try $0.decode(Date.self) }
        let oldest = try await rows("read the oldest asset's date",
                                    "SELECT creationDate FROM asset ORDER BY creationDate ASC, identifier DESC LIMIT 1") { try $0.decode(Date.self) }
        return (newest.first, oldest.first)
    }

    func setInCloud(_ isInCloud: Bool, contentHash: String, storedPath: String) async throws {
        _ = try await writingChanges("move an original to or from the cloud tier") { connection, changes in
            let updated = try await connection.query("""
                UPDATE asset SET isInCloud = \(isInCloud) WHERE contentHash = \(contentHash) AND storedPath = \(storedPath) RETURNING identifier
                """, logger: logger)
            for try await identifier in updated.decode(String.self) { changes.append(.changed, asset: identifier) }
        }
    }

    func replaceContents(_ replacements: [(identifier: String, record: AssetRecord)]) async throws -> [AssetRecord] {
        guard !replacements.isEmpty else { return [] }
        return try await writingChanges("record changed files") { connection, changes in
            var replaced: [AssetRecord] = []
            for (identifier, record) in replacements {
                guard let old = try await Self.lockedAsset(identifier, connection, logger),
                      old.contentHash != record.contentHash || old.storedPath != record.storedPath else { continue }
                var updated = record
                updated.identifier = identifier
                updated.importedAt = old.importedAt
                updated.isInCloud = false
                try await connection.query(Self.update(updated), logger: logger)
                changes.append(.changed, asset: identifier)
                replaced.append(old)
            }
            return replaced
        }
    }

    /// The UPDATE of every column of `record` but its identifier and import date.
    static func update(_ record: AssetRecord) -> PostgresQuery {
        """
        UPDATE asset SET contentHash = \(record.contentHash), fileName = \(record.fileName), storedPath = \(record.storedPath),
            type = \(record.type.identifier), mediaType = \(record.mediaType.rawValue), subtypes = \(record.subtypes),
            pixelWidth = \(record.pixelWidth.map(Int32.init)), pixelHeight = \(record.pixelHeight.map(Int32.init)),
            frameCount = \(record.frameCount.map(Int32.init)), duration = \(record.duration), fileSize = \(record.fileSize),
            creationDate = \(record.creationDate), isInCloud = \(record.isInCloud), properties = \(record.properties),
            pairedPath = \(record.pairedPath), pairedHash = \(record.pairedHash), pairedType = \(record.pairedType?.identifier),
            city = \(record.city), country = \(record.country), camera = \(record.camera)
        WHERE identifier = \(record.identifier)
        """
    }

    func rename(_ identifier: String, to fileName: String) async throws -> Bool {
        try await writingChanges("rename an asset") { connection, changes in
            let renamed = try await Self.exists(connection.query("""
                UPDATE asset SET fileName = \(fileName) WHERE identifier = \(identifier) AND fileName <> \(fileName) RETURNING identifier
                """, logger: logger))
            if renamed { changes.append(.changed, asset: identifier) }
            return renamed
        }
    }

    func remove(_ identifiers: [String]) async throws -> (removed: [AssetRecord], edits: [AssetRecord]) {
        try await writingChanges("remove assets") { connection, changes in
            var removed: [AssetRecord] = []
            // The current versions apps made go with their assets (the rows by cascade).
            var edits: [AssetRecord] = []
            for identifier in identifiers {
                guard let asset = try await Self.lockedAsset(identifier, connection, logger) else { continue }
                if let edit = try await Self.edit(of: identifier, connection, logger) { edits.append(edit.currentVersion(of: asset)) }
                let albums = try await connection.query("SELECT album FROM albumAsset WHERE asset = \(identifier) ORDER BY album", logger: logger)
                for try await album in albums.decode(String.self) { changes.append(.removedFromAlbum, asset: identifier, album: album) }
                try await connection.query("DELETE FROM asset WHERE identifier = \(identifier)", logger: logger)
                changes.append(.removed, asset: identifier)
                removed.append(asset)
            }
            return (removed, edits)
        }
    }

    func uses(contentHash: String, storedPath: String) async throws -> (pathInUse: Bool, contentInUse: Bool) {
        let found = try await rows("look up a stored file's uses", """
            SELECT EXISTS (SELECT 1 FROM asset WHERE contentHash = \(contentHash) AND storedPath = \(storedPath)),
                   EXISTS (SELECT 1 FROM asset WHERE contentHash = \(contentHash))
            """) { try $0.decode((Bool, Bool).self) }
        return found.first ?? (false, false)
    }

    func isPairedMovieUsed(_ path: String) async throws -> Bool {
        try await rows("look up a Live Photo movie's uses", "SELECT EXISTS (SELECT 1 FROM asset WHERE pairedPath = \(path))") {
            try $0.decode(Bool.self)
        }.first ?? false
    }

    func contentHashesInUse(_ hashes: Set<String>) async throws -> Set<String> {
        let list = Array(hashes)
        return Set(try await rows("look up derived files' uses", """
            SELECT contentHash FROM asset WHERE contentHash = ANY(\(list))
            UNION SELECT contentHash FROM assetEdit WHERE contentHash = ANY(\(list))
            """) { try $0.decode(String.self) })
    }

    func storedFileUses(of paths: [String]) async throws -> StoredFileUses {
        let hashes = Array(Set(paths.map(StoredFileUses.contentHash)))
        var uses = StoredFileUses()
        for (path, isInCloud) in try await rows("look up stored files' uses", """
            SELECT storedPath, isInCloud FROM asset WHERE contentHash = ANY(\(hashes))
            """, { try $0.decode((String, Bool).self) }) {
            if isInCloud { uses.cloud.insert(path) } else { uses.local.insert(path) }
        }
        // An app's edit (`AssetEdit`) is a file of its own beside the original, named by its own hash.
        uses.local.formUnion(try await rows("look up stored edits' uses", "SELECT storedPath FROM assetEdit WHERE contentHash = ANY(\(hashes))") {
            try $0.decode(String.self)
        })
        uses.local.formUnion(try await rows("look up stored movies' uses", "SELECT pairedPath FROM asset WHERE pairedPath = ANY(\(paths))") {
            try $0.decode(String.self)
        })
        return uses
    }
}

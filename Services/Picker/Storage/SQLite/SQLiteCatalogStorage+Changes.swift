import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Changing and removing assets in SQLite, each change recorded in the same transaction.
extension SQLiteCatalogStorage {
    func replaceContents(_ replacements: [(identifier: String, record: AssetRecord)]) async throws -> [AssetRecord] {
        guard !replacements.isEmpty else { return [] }
        return try await database.write { db in
            var replaced: [AssetRecord] = []
            for (identifier, record) in replacements {
                guard let old = try AssetRecord.fetchOne(db, key: identifier),
                      old.contentHash != record.contentHash || old.storedPath != record.storedPath else { continue }
                var updated = record
                updated.identifier = identifier
                updated.importedAt = old.importedAt
                updated.isInCloud = false
                try updated.update(db)
                try LibraryChangeLog.record(.changed, asset: identifier, in: db)
                replaced.append(old)
            }
            return replaced
        }
    }

    func rename(_ identifier: String, to fileName: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "UPDATE asset SET fileName = ? WHERE identifier = ? AND fileName <> ?", arguments: [fileName, identifier, fileName])
            guard db.changesCount > 0 else { return false }
            try LibraryChangeLog.record(.changed, asset: identifier, in: db)
            return true
        }
    }

    func remove(_ identifiers: [String]) async throws -> (removed: [AssetRecord], edits: [AssetRecord]) {
        try await database.write { db in
            var removed: [AssetRecord] = []
            // The current versions apps made go with their assets (the rows by cascade).
            var edits: [AssetRecord] = []
            for identifier in identifiers {
                guard let asset = try AssetRecord.fetchOne(db, key: identifier) else { continue }
                if let edit = try AssetEdit.fetch(db, asset: identifier) { edits.append(edit.currentVersion(of: asset)) }
                for album in try String.fetchAll(db.cachedStatement(sql: "SELECT album FROM albumAsset WHERE asset = ?"), arguments: [identifier]) {
                    try LibraryChangeLog.record(.removedFromAlbum, asset: identifier, album: album, in: db)
                }
                _ = try AssetRecord.deleteOne(db, key: identifier)
                try LibraryChangeLog.record(.removed, asset: identifier, in: db)
                removed.append(asset)
            }
            return (removed, edits)
        }
    }

    func uses(contentHash: String, storedPath: String) async throws -> (pathInUse: Bool, contentInUse: Bool) {
        try await database.detachedRead { db in
            // A stored path names its content (`<hash>…`), so asking by the indexed content hash
            // first reads only that content's rows, not the whole table.
            (try AssetRecord.filter(Column("contentHash") == contentHash && Column("storedPath") == storedPath).fetchCount(db) > 0,
             try AssetRecord.filter(Column("contentHash") == contentHash).fetchCount(db) > 0)
        }
    }

    func isPairedMovieUsed(_ path: String) async throws -> Bool {
        try await database.detachedRead { db in try AssetRecord.filter(Column("pairedPath") == path).fetchCount(db) } > 0
    }
}

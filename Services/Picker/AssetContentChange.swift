import Foundation
import GRDB
import LightboxProtocol

/// An asset whose file was edited in a watched folder keeps its identifier (the person edited
/// the same photo; apps that hold it follow the change): its row takes the new content's stored
/// copy and metadata, watchers hear `changed`, and the old content's files go unless another
/// asset uses them.
extension Catalog {
    /// Gives each asset the content of its record (stored and durable already), in one
    /// transaction; assets that are gone are passed over.
    func replaceContents(_ replacements: [(identifier: String, record: AssetRecord)]) async throws {
        guard !replacements.isEmpty else { return }
        let replaced: [AssetRecord] = try await database.write { db in
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
        guard !replaced.isEmpty else { return }
        changeFeed?.libraryChanged()
        for old in replaced { try await removeUnusedFiles(of: old) }
    }

    /// Lists the asset under a new file name (its file was renamed); watchers hear `changed`.
    func rename(_ identifier: String, to fileName: String) async throws {
        let name = SafeFileName.make(fileName)
        let renamed = try await database.write { db in
            try db.execute(sql: "UPDATE asset SET fileName = ? WHERE identifier = ? AND fileName <> ?", arguments: [name, identifier, name])
            guard db.changesCount > 0 else { return false }
            try LibraryChangeLog.record(.changed, asset: identifier, in: db)
            return true
        }
        if renamed { changeFeed?.libraryChanged() }
    }
}

extension LibraryImporter {
    /// Gives each asset the content `prepare` stored for its record, once the stored files are
    /// durable (one sync for them all, as `commit` does for new assets).
    func commit(replacing replacements: [(identifier: String, record: AssetRecord)]) async throws {
        guard !replacements.isEmpty else { return }
        try await DurableFiles.makeDurable(replacements.flatMap { storedFiles(of: $0.record) })
        try await catalog.replaceContents(replacements)
    }
}

import Foundation
import GRDB
import LightboxProtocol

/// An asset whose file was edited in a watched folder keeps its identifier (the person edited
/// the same photo; apps that hold it follow the change): its row takes the new content's stored
/// copy and metadata, watchers hear `changed`, and the old content's files go unless another
/// asset uses them.
extension Catalog {
    /// Gives asset `identifier` the content of `record` (stored and durable already). Returns
    /// false when the asset is gone.
    @discardableResult
    func replaceContent(of identifier: String, with record: AssetRecord) async throws -> Bool {
        let old: AssetRecord? = try await database.write { db in
            guard let old = try AssetRecord.fetchOne(db, key: identifier) else { return nil }
            guard old.contentHash != record.contentHash || old.storedPath != record.storedPath else { return old }
            var updated = record
            updated.identifier = identifier
            updated.importedAt = old.importedAt
            updated.isInCloud = false
            try updated.update(db)
            try LibraryChangeLog.record(.changed, asset: identifier, in: db)
            return old
        }
        guard let old else { return false }
        if old.contentHash != record.contentHash || old.storedPath != record.storedPath {
            changeFeed?.libraryChanged()
            try await removeUnusedFiles(of: old)
        }
        return true
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
    /// Gives asset `identifier` the content `prepare` stored for `record`, once the stored files are durable.
    func commit(replacing identifier: String, with record: AssetRecord) async throws {
        let files = storedFiles(of: record)
        try await onPool { try DurableFiles.sync(files) }
        try await catalog.replaceContent(of: identifier, with: record)
    }
}

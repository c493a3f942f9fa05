import Foundation
import GRDB
import LightboxProtocol

/// Removing assets from the library: the catalog rows (their provider tokens and album memberships
/// go with them, each membership a `removedFromAlbum` change first, so an app that saw the asset
/// through an album hears it is gone), a `removed` change each, then the files no other asset uses —
/// the original and the derived files made from its content.
extension Catalog {
    /// Removes the assets that exist; returns their identifiers.
    func remove(_ identifiers: [String]) async throws -> [String] {
        let (removed, edits): ([AssetRecord], [AssetRecord]) = try await database.write { db in
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
        guard !removed.isEmpty else { return [] }
        changeFeed?.libraryChanged()
        for asset in removed + edits { try await removeUnusedFiles(of: asset) }
        return removed.map(\.identifier)
    }

    /// Removes the stored files of `asset` that no asset in the catalog uses any more.
    func removeUnusedFiles(of asset: AssetRecord) async throws {
        let (pathInUse, contentInUse) = try await database.detachedRead { db in
            // A stored path names its content (`<hash>…`), so asking by the indexed content hash
            // first reads only that content's rows, not the whole table.
            (try AssetRecord.filter(Column("contentHash") == asset.contentHash && Column("storedPath") == asset.storedPath).fetchCount(db) > 0,
             try AssetRecord.filter(Column("contentHash") == asset.contentHash).fetchCount(db) > 0)
        }
        // Best effort, as for local files: the rows are gone already. An object the store could not
        // delete then (it was down) stays behind until the next sweep (`StoredFileSweep`).
        if !pathInUse {
            if asset.isInCloud {
                try? await cloudStore.remove(asset.storedPath)
            } else {
                try? await originalStore.remove(asset.original)
            }
        }
        if let movie = asset.pairedPath,
           try await database.detachedRead({ db in try AssetRecord.filter(Column("pairedPath") == movie).fetchCount(db) }) == 0 {
            try? await originalStore.remove(OriginalFile(path: movie))
        }
        if !contentInUse {
            // Renditions are named `<hash>.<kind>` (`RenditionKey.fileName`) in the folder of the
            // name's first two characters (`DerivativeCache`).
            let folder = derived.appendingPathComponent(String(asset.contentHash.prefix(2)))
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(asset.contentHash + ".") {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }
}

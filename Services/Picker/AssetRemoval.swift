import Foundation
import LightboxProtocol

/// Removing assets from the library: the catalog rows (their provider tokens and album memberships
/// go with them, each membership a `removedFromAlbum` change first, so an app that saw the asset
/// through an album hears it is gone), a `removed` change each, then the files no other asset uses —
/// the original and the derived files made from its content.
extension Catalog {
    /// Removes the assets that exist; returns their identifiers.
    func remove(_ identifiers: [String]) async throws -> [String] {
        let (removed, edits) = try await storage.remove(identifiers)
        guard !removed.isEmpty else { return [] }
        changeFeed?.libraryChanged()
        for asset in removed + edits { try await removeUnusedFiles(of: asset) }
        return removed.map(\.identifier)
    }

    /// Removes the stored files of `asset` that no asset in the catalog uses any more.
    func removeUnusedFiles(of asset: AssetRecord) async throws {
        let (pathInUse, contentInUse) = try await storage.uses(contentHash: asset.contentHash, storedPath: asset.storedPath)
        // Best effort, as for local files: the rows are gone already. An object the store could not
        // delete then (it was down) stays behind until the next sweep (`StoredFileSweep`).
        if !pathInUse {
            if asset.isInCloud {
                try? await cloudStore.remove(asset.storedPath)
            } else {
                try? await originalStore.remove(asset.original)
            }
        }
        if let movie = asset.pairedPath, try await !storage.isPairedMovieUsed(movie) {
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

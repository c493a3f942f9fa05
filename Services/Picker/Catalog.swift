import Foundation
import LightboxProtocol

/// The picker's view of the library: assets by identifier and in library order (newest first), kept
/// in `storage`, with their stored files.
struct Catalog: Sendable {
    let storage: any CatalogStorage
    let originals: URL
    /// The cloud tier: originals offloaded by the owner live here until downloaded again.
    let cloudStore: any CloudStore
    /// Derived files (transcodes, stripped copies, thumbnails), named by content and operation.
    let derived: URL
    /// Told after every write that records a library change, so watching apps hear of it.
    var changeFeed: LibraryChangeFeed?
    /// The object store holding the originals, with `originals` as its local cache; nil keeps them
    /// in the `originals` folder itself.
    var objectStore: S3OriginalStore?

    func allAssets() async throws -> [AssetRecord] {
        try await storage.allAssets()
    }

    func assets(_ identifiers: [String]) async throws -> [String: AssetRecord] {
        try await storage.assets(identifiers)
    }

    func asset(_ identifier: String) async throws -> AssetRecord? {
        try await storage.asset(identifier)
    }

    /// Whether the catalog has the asset; blocking (a pool thread's check inside a longer job).
    func containsAsset(_ identifier: String) throws -> Bool {
        try storage.containsAsset(identifier)
    }

    /// Inserts the records in one transaction, in order; returns the identifiers that were new
    /// (of several records with one identifier, or one the catalog has, only a first new one is).
    @discardableResult
    func insert(_ records: [AssetRecord]) async throws -> Set<String> {
        let inserted = try await storage.insert(records)
        if !inserted.isEmpty { changeFeed?.libraryChanged() }
        return inserted
    }

    /// The creation dates of the newest and the oldest asset: the two ends of the library-order index.
    func dateSpan() async throws -> (newest: Date?, oldest: Date?) {
        try await storage.dateSpan()
    }

    /// The library's albums, each with how many assets it holds.
    func albums() async throws -> [Album] {
        try await storage.albums()
    }

    func createAlbum(title: String) async throws -> Album {
        // New, so empty: said as listings say it (`albums()`).
        let album = Album(identifier: UUID().uuidString + "/L0/040", title: title, createdAt: Date(), assetCount: 0)
        try await storage.insert(album)
        return album
    }

    /// Where the originals are kept (`OriginalStore`): read them through it.
    var originalStore: any OriginalStore {
        objectStore ?? LocalOriginalFolder(originals: originals)
    }

    /// Where the original is written at import, built only from the catalog's own relative path
    /// (with an object store, its cache's copy, there until the import kept it).
    func originalURL(of asset: AssetRecord) -> URL {
        originals.appendingPathComponent(asset.storedPath)
    }

    /// Marks `asset` and every asset sharing its original (the same content, the same stored file)
    /// as in the cloud tier or local, each a library change.
    func setInCloud(_ isInCloud: Bool, sharingOriginalOf asset: AssetRecord) async throws {
        try await storage.setInCloud(isInCloud, contentHash: asset.contentHash, storedPath: asset.storedPath)
        changeFeed?.libraryChanged()
    }
}

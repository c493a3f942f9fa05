import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The picker's view of the library: assets by identifier and in library order (newest first).
struct Catalog: Sendable {
    let database: DatabasePool
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
    /// `library.query` totals, per state of the library.
    let counts = QueryCounts()

    func allAssets() async throws -> [AssetRecord] {
        try await database.detachedRead { db in
            try AssetRecord.order(AssetRecord.Columns.creationDate.desc, AssetRecord.Columns.identifier).fetchAll(db)
        }
    }

    func assets(_ identifiers: [String]) async throws -> [String: AssetRecord] {
        try await database.read(try AssetsByIdentifier(identifiers))
    }

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

    func asset(_ identifier: String) async throws -> AssetRecord? {
        try database.pointRead { db in try Self.asset(db, identifier) }
    }

    /// The asset, read inside a read the caller makes (with the token that names it, say).
    static func asset(_ db: Database, _ identifier: String) throws -> AssetRecord? {
        try AssetRecord.fetchOne(positionally: db.cachedStatement(sql: assetByIdentifier), arguments: [identifier])
    }

    private static let assetByIdentifier = "SELECT \(AssetRecord.selectList) FROM asset WHERE identifier = ?"
    private static let assetsByIdentifier = "SELECT \(AssetRecord.selectList) FROM asset WHERE identifier IN (SELECT value FROM json_each(?))"

    /// Whether the catalog has the asset; blocking (a pool thread's check inside a longer job, on
    /// that thread's own connection).
    func containsAsset(_ identifier: String) throws -> Bool {
        try database.pointRead { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM asset WHERE identifier = ?)"), arguments: [identifier]) ?? false
        }
    }

    /// Inserts the records in one transaction, in order; returns the identifiers that were new
    /// (of several records with one identifier, or one the catalog has, only a first new one is).
    @discardableResult
    func insert(_ records: [AssetRecord]) async throws -> Set<String> {
        guard !records.isEmpty else { return [] }
        let inserted = try await database.write { db in
            var inserted: Set<String> = []
            for record in records {
                try record.insert(db, onConflict: .ignore)
                guard db.changesCount > 0 else { continue }
                inserted.insert(record.identifier)
                try LibraryChangeLog.record(.inserted, asset: record.identifier, in: db)
            }
            return inserted
        }
        if !inserted.isEmpty { changeFeed?.libraryChanged() }
        return inserted
    }

    /// The creation dates of the newest and the oldest asset: the two ends of the library-order index.
    func dateSpan() async throws -> (newest: Date?, oldest: Date?) {
        try database.pointRead { db in
            (try Date.fetchOne(db.cachedStatement(sql: "SELECT creationDate FROM asset ORDER BY creationDate DESC, identifier ASC LIMIT 1")),
             try Date.fetchOne(db.cachedStatement(sql: "SELECT creationDate FROM asset ORDER BY creationDate ASC, identifier DESC LIMIT 1")))
        }
    }

    /// The library's albums, each with how many assets it holds.
    func albums() async throws -> [Album] {
        try await database.detachedRead { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT album, COUNT(*) FROM albumAsset GROUP BY album"))
            while let row = try rows.next() { counts[row[0]] = row[1] }
            return try Album.fetchAll(positionally: db.cachedStatement(sql: Album.inOrder)).map { album in
                var album = album
                album.assetCount = counts[album.identifier, default: 0]
                return album
            }
        }
    }

    func createAlbum(title: String) async throws -> Album {
        // New, so empty: said as listings say it (`albums()`).
        let album = Album(identifier: UUID().uuidString + "/L0/040", title: title, createdAt: Date(), assetCount: 0)
        try await database.write { db in
            try db.execute(sql: "INSERT INTO album (identifier, title, createdAt) VALUES (?, ?, ?)",
                           arguments: [album.identifier, album.title, album.createdAt])
        }
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
    /// as in the cloud tier or local, each a library change. Read by the content-hash index.
    func setInCloud(_ isInCloud: Bool, sharingOriginalOf asset: AssetRecord) async throws {
        try await database.write { db in
            let sharing = "contentHash = ? AND storedPath = ?"
            let arguments: StatementArguments = [asset.contentHash, asset.storedPath]
            let identifiers = try String.fetchAll(db, sql: "SELECT identifier FROM asset WHERE \(sharing)", arguments: arguments)
            try db.execute(sql: "UPDATE asset SET isInCloud = ? WHERE \(sharing)", arguments: [isInCloud] + arguments)
            for identifier in identifiers { try LibraryChangeLog.record(.changed, asset: identifier, in: db) }
        }
        changeFeed?.libraryChanged()
    }
}

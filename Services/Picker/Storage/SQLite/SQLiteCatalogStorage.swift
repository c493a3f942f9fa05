import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The catalog in one SQLite database (WAL) in the data directory: the default storage
/// (`CatalogDatabase` has its schema).
struct SQLiteCatalogStorage: CatalogStorage {
    let database: DatabasePool
    /// `library.query` totals, per state of the library.
    let counts = QueryCounts()
    /// Picks live in memory beside SQLite: one picker serves the library.
    let pickSessions: any PickSessionStorage = EmbeddedPickSessions()

    init(database: DatabasePool) {
        self.database = database
    }

    /// Opens (creating and migrating as needed) the catalog at `url`.
    init(at url: URL) throws {
        self.init(database: try CatalogDatabase.open(at: url))
    }

    var selections: any SelectionStorage { SelectionTable(database: database) }
    var watchedFiles: any WatchedFileStorage { WatchedFiles(database: database) }
    var providerTokens: any ProviderTokenStorage { SQLiteProviderTokens(database: database) }

    /// Nothing to keep: the database is a file, opened (and migrated) by `init`.
    func run() async {}

    func prepare() async throws {}

    func changes(after token: Int64, limit: Int) async throws -> [LibraryChangeLog.Entry] {
        try await database.detachedRead { db in try LibraryChangeLog.entries(after: token, limit: limit, in: db) }
    }

    func latestChangeToken() async throws -> Int64 {
        try await database.read { db in try LibraryChangeLog.latestToken(in: db) }
    }

    /// Nothing to follow: one picker process writes the file.
    func followChangesElsewhere(_ changedElsewhere: @escaping @Sendable () -> Void) async {}

    func storedFileUses(of paths: [String]) async throws -> StoredFileUses {
        try await database.read { db in try StoredFileUses(of: paths, db) }
    }

    func contentHashesInUse(_ hashes: Set<String>) async throws -> Set<String> {
        let list = String(decoding: try JSONEncoder().encode(Array(hashes)), as: UTF8.self)
        return try await database.read { db in
            Set(try String.fetchAll(db.cachedStatement(sql: """
                SELECT contentHash FROM asset WHERE contentHash IN (SELECT value FROM json_each(?1))
                UNION SELECT contentHash FROM assetEdit WHERE contentHash IN (SELECT value FROM json_each(?1))
                """), arguments: [list]))
        }
    }
}

import Foundation
import LightboxProtocol

/// Where the picker keeps its catalog: the assets and their albums, apps' edits, the library's change
/// log, limited apps' selections, the watched folders' files and the item-provider tokens. Two
/// implementations: `SQLiteCatalogStorage`, a file in the data directory (the default), and
/// `PostgresCatalogStorage`, a PostgreSQL database several pickers can share. Every write returns
/// only once committed, and a write that changes the library records its change rows in the same
/// transaction; no SQL is written anywhere else.
protocol CatalogStorage: AssetStorage, LibraryPageStorage, AlbumStorage, EditStorage, LibraryChangeStorage {
    /// Limited apps' selections, as lightbox-auth last answered them.
    var selections: any SelectionStorage { get }
    /// What the picker last saw of each file in a watched folder.
    var watchedFiles: any WatchedFileStorage { get }
    /// The item-provider tokens, stored by their hashes.
    var providerTokens: any ProviderTokenStorage { get }
    /// The picks waiting for the owner.
    var pickSessions: any PickSessionStorage { get }
    /// Keeps what the storage needs while the picker serves (a connection pool), until cancelled.
    func run() async
    /// Brings the schema up to date before the picker serves; `run()` is running by then.
    func prepare() async throws
}

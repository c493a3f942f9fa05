import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Albums holding assets (`albumAsset`); every membership change is a library change: one `album`
/// row per change, and a row per asset that joined or left (what apps whose limited selection
/// follows the album see as an insertion or a removal).
extension Catalog {
    func album(_ identifier: String) async throws -> Album? {
        try await database.detachedRead { db in
            try Album.fetchOne(positionally: db.cachedStatement(sql: Album.byIdentifier), arguments: [identifier])
        }
    }

    /// Adds (or, with `isAdding` false, removes) assets; returns how many memberships changed.
    func setMembership(of assets: [String], in album: String, isAdding: Bool) async throws -> Int {
        let changed = try await database.write { db in
            var changed = 0
            let statement = try isAdding
                ? db.cachedStatement(sql: "INSERT OR IGNORE INTO albumAsset (album, asset, addedAt) VALUES (?, ?, ?)")
                : db.cachedStatement(sql: "DELETE FROM albumAsset WHERE album = ? AND asset = ?")
            let now = Date()
            for asset in assets {
                let arguments: StatementArguments = isAdding ? [album, asset, now] : [album, asset]
                try statement.execute(arguments: arguments)
                guard db.changesCount > 0 else { continue }
                changed += 1
                try LibraryChangeLog.record(isAdding ? .addedToAlbum : .removedFromAlbum, asset: asset, album: album, in: db)
            }
            if changed > 0 { try LibraryChangeLog.record(.album, album: album, in: db) }
            return changed
        }
        if changed > 0 { changeFeed?.libraryChanged() }
        return changed
    }

    /// One page of an album's assets, newest first.
    func albumPage(_ album: String, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetSummary], next: LibraryCursor?) {
        try await database.detachedRead { db in
            try Self.page(db, conditions: [Self.inAlbum(album)], order: .newestFirst, limit: limit, after: cursor)
        }
    }

    /// The assets of `album`, as a page's condition.
    static func inAlbum(_ album: String) -> SQLExpression {
        SQL(sql: "identifier IN (SELECT asset FROM albumAsset WHERE album = ?)", arguments: [album]).sqlExpression
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Albums holding assets (`albumAsset`); every membership change is a library change.
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
            for asset in assets {
                if isAdding {
                    try db.execute(sql: "INSERT OR IGNORE INTO albumAsset (album, asset, addedAt) VALUES (?, ?, ?)",
                                   arguments: [album, asset, Date()])
                } else {
                    try db.execute(sql: "DELETE FROM albumAsset WHERE album = ? AND asset = ?", arguments: [album, asset])
                }
                changed += db.changesCount
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

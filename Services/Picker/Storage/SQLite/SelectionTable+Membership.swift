import Foundation
import GRDB
import LightboxStorage

extension SelectionTable {
    typealias Membership = SelectionMembership

    /// How `assets` are in `app`'s selection now, in one read.
    func membership(of app: String, among assets: [String]) async throws -> Membership {
        guard !assets.isEmpty else { return Membership() }
        let list = String(decoding: try JSONEncoder().encode(assets), as: UTF8.self)
        return try await database.detachedRead { db in
            var membership = Membership()
            membership.chosen = Set(try String.fetchAll(db.cachedStatement(sql: """
                SELECT asset FROM appSelection WHERE app = ? AND asset IN (SELECT value FROM json_each(?))
                """), arguments: [app, list]))
            membership.followed = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT album FROM appSelectionAlbum WHERE app = ?"),
                                                          arguments: [app]))
            guard !membership.followed.isEmpty else { return membership }
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT asset, album FROM albumAsset WHERE asset IN (SELECT value FROM json_each(?))
                    AND album IN (SELECT album FROM appSelectionAlbum WHERE app = ?)
                """), arguments: [list, app])
            while let row = try rows.next() {
                membership.albumsHolding[row[0] as String, default: []].insert(row[1] as String)
            }
            return membership
        }
    }
}

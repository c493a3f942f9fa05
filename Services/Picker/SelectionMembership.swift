import Foundation
import GRDB
import LightboxStorage

extension SelectionTable {
    /// How some assets are in one app's selection now: chosen, or through which of the albums it
    /// follows. What a limited app's change events are decided from: an asset added to a followed
    /// album is new to the app only if nothing else showed it already, and one taken out is gone only
    /// if nothing else still shows it.
    struct Membership: Sendable {
        /// The assets chosen for the app.
        var chosen: Set<String> = []
        /// The albums the selection follows.
        var followed: Set<String> = []
        /// For each asset in a followed album now, those albums.
        var albumsHolding: [String: Set<String>] = [:]

        /// Whether the app sees `asset` now.
        func sees(_ asset: String) -> Bool {
            chosen.contains(asset) || albumsHolding[asset] != nil
        }

        /// Whether the app sees `asset` now through anything but `album`.
        func sees(_ asset: String, otherThan album: String) -> Bool {
            chosen.contains(asset) || albumsHolding[asset, default: []].contains { $0 != album }
        }
    }

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

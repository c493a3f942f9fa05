import Foundation
import LightboxProtocol

/// The library's persistent change history (`libraryChange`): one row per inserted, removed or
/// changed asset, per album membership change, and per album a limited app's selection began or
/// stopped following, written in the same transaction as the change, so a token names one point in
/// the library's history across restarts.
enum LibraryChangeLog {
    enum Kind: String {
        case inserted, removed, changed, album
        /// One asset joined or left one album (beside the album's one `album` row for the change):
        /// what apps whose limited selection follows the album see as an insertion or a removal.
        case addedToAlbum, removedFromAlbum
        /// One app's limited selection began or stopped following `album` (`app` says whose): that
        /// app alone sees the album's members inserted or removed (`LibraryView`).
        case followed, unfollowed
    }

    struct Entry: Sendable {
        var token: Int64
        var kind: String
        var asset: String?
        var album: String?
        var at: Date
        /// The one app a row is for (`followed`, `unfollowed`); nil for the library's own changes.
        var app: String? = nil
    }

    /// The rows a selection's change of followed albums adds, in order: albums begun, then stopped.
    static func follows(before: Set<String>, after: Set<String>) -> [(kind: Kind, album: String)] {
        after.subtracting(before).sorted().map { (.followed, $0) } + before.subtracting(after).sorted().map { (.unfollowed, $0) }
    }

    /// The entry as a change an app with full access receives (what it may see is `LibraryView`'s to
    /// say), or nil for a kind this build does not know and for one asset's membership (such an app
    /// hears of the album through its `album` row).
    static func change(_ entry: Entry) -> LibraryChange? {
        var change = LibraryChange(token: entry.token, at: entry.at)
        switch Kind(rawValue: entry.kind) {
        case .inserted: change.inserted = entry.asset.map { [$0] } ?? []
        case .removed: change.removed = entry.asset.map { [$0] } ?? []
        case .changed: change.changed = entry.asset.map { [$0] } ?? []
        case .album: change.albums = entry.album.map { [$0] } ?? []
        case .addedToAlbum, .removedFromAlbum, .followed, .unfollowed, nil: return nil
        }
        return change.isEmpty ? nil : change
    }
}

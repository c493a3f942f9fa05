import Foundation

/// How some assets are in one app's selection now: chosen, or through which of the albums it
/// follows. What a limited app's change events are decided from: an asset added to a followed
/// album is new to the app only if nothing else showed it already, and one taken out is gone only
/// if nothing else still shows it.
struct SelectionMembership: Sendable {
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

import Foundation

/// Limited apps' selections as lightbox-auth last answered them: assets chosen and albums followed,
/// replaced only by a newer answer (`version`).
protocol SelectionStorage: Sendable {
    /// Stores the selection unless a newer one is stored; returns whether it was stored. Each album
    /// the new selection follows and the stored one did not (or the reverse) is recorded in the
    /// change log in the same transaction (`followed`, `unfollowed`), for the app's watchers —
    /// except the first time the app's selection is stored.
    @discardableResult
    func replace(app: String, with assets: [String], albums: [String], version: Int64) async throws -> Bool
    /// The members of `album`, by identifier.
    func assets(inAlbum album: String) async throws -> [String]
    /// Which of `assets` are in `app`'s selection: chosen, or in an album it follows.
    func members(of app: String, among assets: [String]) async throws -> Set<String>
    /// How `assets` are in `app`'s selection now, in one read.
    func membership(of app: String, among assets: [String]) async throws -> SelectionMembership
}

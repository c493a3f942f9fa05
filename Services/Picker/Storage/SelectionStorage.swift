import Foundation

/// Limited apps' selections as lightbox-auth last answered them: assets chosen and albums followed,
/// replaced only by a newer answer (`version`).
protocol SelectionStorage: Sendable {
    /// Stores the selection unless a newer one is stored; returns whether it was stored.
    @discardableResult
    func replace(app: String, with assets: [String], albums: [String], version: Int64) async throws -> Bool
    /// Which of `assets` are in `app`'s selection: chosen, or in an album it follows.
    func members(of app: String, among assets: [String]) async throws -> Set<String>
    /// How `assets` are in `app`'s selection now, in one read.
    func membership(of app: String, among assets: [String]) async throws -> SelectionMembership
}

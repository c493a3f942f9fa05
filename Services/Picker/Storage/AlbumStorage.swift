import Foundation
import LightboxProtocol

/// The library's albums and their members; every membership change is a library change.
protocol AlbumStorage: Sendable {
    /// The albums, each with how many assets it holds.
    func albums() async throws -> [Album]
    func album(_ identifier: String) async throws -> Album?
    func insert(_ album: Album) async throws
    /// Adds (or removes) assets; returns how many memberships changed.
    func setMembership(of assets: [String], in album: String, isAdding: Bool) async throws -> Int
}

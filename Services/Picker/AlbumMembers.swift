import Foundation
import LightboxProtocol

/// Albums holding assets; every membership change is a library change: one `album` change per
/// change, and one per asset that joined or left (what apps whose limited selection follows the
/// album see as an insertion or a removal).
extension Catalog {
    func album(_ identifier: String) async throws -> Album? {
        try await storage.album(identifier)
    }

    /// Adds (or, with `isAdding` false, removes) assets; returns how many memberships changed.
    func setMembership(of assets: [String], in album: String, isAdding: Bool) async throws -> Int {
        let changed = try await storage.setMembership(of: assets, in: album, isAdding: isAdding)
        if changed > 0 { changeFeed?.libraryChanged() }
        return changed
    }
}

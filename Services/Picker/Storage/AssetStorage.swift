import Foundation
import LightboxProtocol

/// The assets of the catalog: read by identifier, written at import, changed, moved to and from the
/// cloud tier and removed. Each write that changes the library records its changes
/// (`LibraryChangeStorage`) in the same transaction.
protocol AssetStorage: Sendable {
    /// Every asset, in library order (newest first).
    func allAssets() async throws -> [AssetRecord]
    func assets(_ identifiers: [String]) async throws -> [String: AssetRecord]
    func asset(_ identifier: String) async throws -> AssetRecord?
    /// Whether the catalog has the asset; blocking: asked by a pool thread inside a longer job.
    func containsAsset(_ identifier: String) throws -> Bool
    /// Inserts the records in one transaction, in order; returns the identifiers that were new (an
    /// `inserted` change each).
    func insert(_ records: [AssetRecord]) async throws -> Set<String>
    /// The creation dates of the newest and the oldest asset.
    func dateSpan() async throws -> (newest: Date?, oldest: Date?)
    /// Marks every asset with this content and stored file as in the cloud tier or local (a
    /// `changed` change each).
    func setInCloud(_ isInCloud: Bool, contentHash: String, storedPath: String) async throws
    /// Gives each asset the content of its record, in one transaction; returns the records replaced.
    func replaceContents(_ replacements: [(identifier: String, record: AssetRecord)]) async throws -> [AssetRecord]
    /// Lists the asset under `fileName`; whether it changed.
    func rename(_ identifier: String, to fileName: String) async throws -> Bool
    /// Removes the assets that exist (their tokens, memberships and edits with them); returns them,
    /// and the current versions of the edits removed with them.
    func remove(_ identifiers: [String]) async throws -> (removed: [AssetRecord], edits: [AssetRecord])
    /// Whether any asset still names this stored file, and any this content.
    func uses(contentHash: String, storedPath: String) async throws -> (pathInUse: Bool, contentInUse: Bool)
    /// Whether any asset names this stored movie as its Live Photo's.
    func isPairedMovieUsed(_ path: String) async throws -> Bool
    /// Which of some stored paths the catalog names (`StoredFileSweep`).
    func storedFileUses(of paths: [String]) async throws -> StoredFileUses
    /// Which of some content hashes an asset or an edit still has (the sweep of derived files).
    func contentHashesInUse(_ hashes: Set<String>) async throws -> Set<String>
}

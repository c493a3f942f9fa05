import Foundation
import LightboxProtocol

/// An asset whose file was edited in a watched folder keeps its identifier (the person edited
/// the same photo; apps that hold it follow the change): its row takes the new content's stored
/// copy and metadata, watchers hear `changed`, and the old content's files go unless another
/// asset uses them.
extension Catalog {
    /// Gives each asset the content of its record (stored and durable already), in one
    /// transaction; assets that are gone are passed over.
    func replaceContents(_ replacements: [(identifier: String, record: AssetRecord)]) async throws {
        guard !replacements.isEmpty else { return }
        let replaced = try await storage.replaceContents(replacements)
        guard !replaced.isEmpty else { return }
        changeFeed?.libraryChanged()
        for old in replaced { try await removeUnusedFiles(of: old) }
    }

    /// Lists the asset under a new file name (its file was renamed); watchers hear `changed`.
    func rename(_ identifier: String, to fileName: String) async throws {
        let name = SafeFileName.make(fileName)
        let renamed = try await storage.rename(identifier, to: name)
        if renamed { changeFeed?.libraryChanged() }
    }
}

extension LibraryImporter {
    /// Gives each asset the content `prepare` stored for its record, once the stored files are
    /// durable (one sync for them all, as `commit` does for new assets).
    func commit(replacing replacements: [(identifier: String, record: AssetRecord)]) async throws {
        guard !replacements.isEmpty else { return }
        try await makeDurable(replacements.map(\.record))
        try await catalog.replaceContents(replacements)
    }
}

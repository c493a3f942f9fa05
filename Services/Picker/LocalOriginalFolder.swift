import Foundation
import LightboxTransport

/// Originals in a local folder: the default store. The files `LibraryImporter` writes and syncs are
/// the originals; nothing is copied.
struct LocalOriginalFolder: OriginalStore {
    let originals: URL

    func keep(_ originals: [OriginalFile]) async throws {}

    func withLocalFile<Result: Sendable>(_ original: OriginalFile, _ use: @Sendable (URL) async throws -> Result) async throws -> Result {
        try original.requireLocal()
        return try await use(originals.appendingPathComponent(original.path))
    }

    func remoteSource(of original: OriginalFile) async throws -> (any ChunkSource)? { nil }

    func remove(_ original: OriginalFile) async throws {
        try? FileManager.default.removeItem(at: originals.appendingPathComponent(original.path))
    }

    func forEachStoredPage(modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws {
        try await LocalStoredFiles.forEachPage(in: originals, modifiedBefore: cutoff, page)
    }

    func removeStored(_ path: String) async throws {
        try await remove(OriginalFile(path: path))
    }
}

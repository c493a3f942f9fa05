import Foundation
import LightboxTransport

/// Originals in a local folder (and the cloud tier's folder for offloaded ones): the default store.
/// The files `LibraryImporter` writes and syncs are the originals; nothing is copied.
struct LocalOriginalFolder: OriginalStore {
    let originals: URL
    let cloud: URL

    var hasCloudTier: Bool { true }

    func url(of original: OriginalFile) -> URL {
        (original.isInCloud ? cloud : originals).appendingPathComponent(original.path)
    }

    func keep(_ originals: [OriginalFile]) async throws {}

    func withLocalFile<Result: Sendable>(_ original: OriginalFile, _ use: @Sendable (URL) async throws -> Result) async throws -> Result {
        try await use(url(of: original))
    }

    func remoteSource(of original: OriginalFile) async throws -> (any ChunkSource)? { nil }

    func remove(_ original: OriginalFile) async throws {
        for folder in [originals, cloud] { try? FileManager.default.removeItem(at: folder.appendingPathComponent(original.path)) }
    }
}

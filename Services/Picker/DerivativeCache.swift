import Foundation

/// Derived files (transcodes, stripped copies, thumbnails), kept by content hash and operation so
/// they are made once and reused. Two requests for the same derivative share one making of it.
actor DerivativeCache {
    let folder: URL
    private var inFlight: [String: Task<URL, Error>] = [:]

    init(folder: URL) {
        self.folder = folder
    }

    /// The derivative `kind` of the content `hash`, made by `make(destination)` when missing.
    func file(hash: String, kind: String, make: @escaping @Sendable (URL) async throws -> Void) async throws -> URL {
        let url = folder.appendingPathComponent("\(hash.prefix(2))/\(hash).\(kind)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        if let running = inFlight[url.path] { return try await running.value }
        let task = Task.detached {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let partial = url.appendingPathExtension("partial-\(UUID().uuidString)")
            do {
                try await make(partial)
                guard rename(partial.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw error
            }
            return url
        }
        inFlight[url.path] = task
        defer { inFlight[url.path] = nil }
        return try await task.value
    }
}

import Foundation

/// The local copies of originals kept in front of an object store (`S3OriginalStore`): decoders
/// need a path, and an original read once is likely read again (its thumbnails, then its load).
///
/// Bounded in bytes and in files: when a new copy takes the folder over either limit, the least
/// recently used copies not in use are removed until it fits. A copy in use (inside `withFile`) is
/// never removed, so the folder can be over its limits by the copies being read at that moment
/// (a single original larger than the byte limit is fetched, used and then removed). The index of
/// copies is in memory and holds at most `maximumCount` entries; it is rebuilt by a scan at start.
/// Only copies the cache knows are ever removed: an import's file not yet uploaded is not one.
/// The folder is private (0700) and copies are 0600, whatever the umask.
actor OriginalCache {
    struct Limits: Sendable {
        var bytes: Int64
        var count: Int
    }

    nonisolated let folder: URL
    nonisolated let limits: Limits
    private var entries: [String: (size: Int64, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var totalBytes: Int64 = 0
    private var pins: [String: Int] = [:]
    private var inFlight: [String: Task<Void, Error>] = [:]

    init(folder: URL, limits: Limits) throws {
        self.folder = folder
        self.limits = Limits(bytes: max(limits.bytes, 0), count: max(limits.count, 1))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(folder.path, 0o700)
        // Oldest first by modification time, so that a restarted picker evicts in about the order it would have.
        var found: [(path: String, size: Int64, modified: Int)] = []
        if let enumerator = FileManager.default.enumerator(atPath: folder.path) {
            while let relative = enumerator.nextObject() as? String {
                let path = folder.path + "/" + relative
                var status = stat()
                guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                if relative.contains(".partial") {
                    unlink(path)
                    continue
                }
                found.append((relative, Int64(status.st_size), status.st_mtim.tv_sec))
            }
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            clock += 1
            entries[file.path] = (file.size, clock)
            totalBytes += file.size
        }
    }

    /// Copies the cache holds.
    var count: Int { entries.count }

    /// Where the copy of the original at `path` is kept, made or not.
    nonisolated func url(of path: String) -> URL {
        folder.appendingPathComponent(path)
    }

    func contains(_ path: String) -> Bool {
        entries[path] != nil && FileManager.default.fileExists(atPath: url(of: path).path)
    }

    /// Runs `use` with the copy of `path`, fetched first by `fetch(partial)` when missing (two
    /// callers for one copy share one fetch). The copy stays while `use` runs.
    func withFile<Result: Sendable>(
        _ path: String, fetch: @escaping @Sendable (URL) async throws -> Void, _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let url = url(of: path)
        pins[path, default: 0] += 1
        defer {
            let count = (pins[path] ?? 1) - 1
            pins[path] = count > 0 ? count : nil
            evictOverLimits()
        }
        if !contains(path) {
            if let running = inFlight[path] {
                try await running.value
            } else {
                let task = Task { try await Self.make(url, with: fetch) }
                inFlight[path] = task
                defer { inFlight[path] = nil }
                try await task.value
                added(path)
            }
        }
        markUsed(path)
        evictOverLimits()
        return try await use(url)
    }

    /// Counts a copy written at `url(of:)` by someone else (an import, once its upload is confirmed).
    func added(_ path: String) {
        var status = stat()
        guard stat(url(of: path).path, &status) == 0 else { return }
        if let old = entries[path] { totalBytes -= old.size }
        clock += 1
        entries[path] = (Int64(status.st_size), clock)
        totalBytes += Int64(status.st_size)
        evictOverLimits()
    }

    /// Drops the copy of `path` (its original was removed).
    func remove(_ path: String) {
        if let old = entries.removeValue(forKey: path) { totalBytes -= old.size }
        unlink(url(of: path).path)
    }

    private func markUsed(_ path: String) {
        guard let entry = entries[path] else { return }
        clock += 1
        entries[path] = (entry.size, clock)
    }

    /// Removes the least recently used copies not in use until the cache is within both limits.
    private func evictOverLimits() {
        guard totalBytes > limits.bytes || entries.count > limits.count else { return }
        let candidates = entries.filter { pins[$0.key] == nil }.sorted { $0.value.used < $1.value.used }
        for (path, entry) in candidates {
            guard totalBytes > limits.bytes || entries.count > limits.count else { break }
            unlink(url(of: path).path)
            entries[path] = nil
            totalBytes -= entry.size
        }
    }

    /// Fetches into a private temporary beside the copy, renamed into place when whole.
    private static func make(_ url: URL, with fetch: @Sendable (URL) async throws -> Void) async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let partial = url.appendingPathExtension("partial-\(UUID().uuidString)")
        do {
            try await fetch(partial)
            chmod(partial.path, 0o600)
            guard rename(partial.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            unlink(partial.path)
            throw error
        }
    }
}

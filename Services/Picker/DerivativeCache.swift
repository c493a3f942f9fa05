import Foundation

/// Derived files (transcodes, stripped copies, thumbnails), kept by content hash and operation so
/// they are made once and reused. Two requests for the same derivative share one making of it.
///
/// The folder holds at most `quota` bytes: when a new file takes it over, the least recently used
/// files are removed until it fits again. Use is recorded in memory and as each file's access time
/// (set explicitly, whatever the mount's atime policy), so the order survives a restart; the
/// modification time stays the time the file was made. A file in use (inside `withFile`) is never
/// removed, so the folder can be over its quota by the files being read at that moment.
///
/// Every derivative is made on `pool`, never on a cooperative thread, except transcodes, which run
/// as child processes under their own budget and slots (`file(hash:kind:make:)`).
actor DerivativeCache {
    let folder: URL
    let quota: Int64
    let pool: BlockingWorkPool

    struct Entry {
        var size: Int64
        /// Larger is more recent.
        var lastUse: UInt64
    }

    /// By file path.
    private var entries: [String: Entry]
    private var totalBytes: Int64
    private var useCounter: UInt64
    private var pins: [String: Int] = [:]
    private var inFlight: [String: Task<Int64, Error>] = [:]

    init(folder: URL, quota: Int64, pool: BlockingWorkPool) {
        self.folder = folder
        self.quota = max(quota, 0)
        self.pool = pool
        let found = Self.scan(folder)
        entries = found
        totalBytes = found.values.reduce(0) { $0 + $1.size }
        useCounter = found.values.map(\.lastUse).max() ?? 0
    }

    /// Bytes the cached files take now.
    var size: Int64 { totalBytes }

    /// Runs `use` with the file of the derivative `kind` of the content `hash`, made first by
    /// `make(destination)` on the pool when missing. The file stays while `use` runs.
    func withFile<Result: Sendable>(
        hash: String, kind: String, make: @escaping @Sendable (URL) throws -> Void,
        _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let pool = self.pool
        return try await withFile(hash: hash, kind: kind, producing: { url in
            try await pool.run { try Self.makeBlocking(url, with: make) }
        }, use)
    }

    /// The derivative `kind` of the content `hash`, made by an async `make` that bounds its own work
    /// (a transcode runs as a budgeted child process in a transcode slot, so it only awaits here and
    /// holds no pool thread). The file is not kept from eviction after this returns: open it at once.
    func file(hash: String, kind: String, make: @escaping @Sendable (URL) async throws -> Void) async throws -> URL {
        try await withFile(hash: hash, kind: kind, producing: { url in try await Self.make(url, with: make) }) { $0 }
    }

    private func withFile<Result: Sendable>(
        hash: String, kind: String, producing produce: @escaping @Sendable (URL) async throws -> Int64,
        _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let url = folder.appendingPathComponent("\(hash.prefix(2))/\(hash).\(kind)")
        let key = url.path
        pins[key, default: 0] += 1
        defer { unpin(key) }
        if entries[key] == nil || !FileManager.default.fileExists(atPath: key) {
            forget(key)
            let size: Int64
            if let running = inFlight[key] {
                size = try await running.value
            } else {
                let task = Task { try await produce(url) }
                inFlight[key] = task
                defer { inFlight[key] = nil }
                size = try await task.value
            }
            if entries[key] == nil {
                entries[key] = Entry(size: size, lastUse: 0)
                totalBytes += size
            }
        }
        markUsed(key)
        evictIfOverQuota()
        return try await use(url)
    }

    // MARK: - Steps

    /// Makes the file through a temporary beside it (renamed into place, so readers see it whole
    /// or not at all); returns its size.
    private static func makeBlocking(_ url: URL, with make: (URL) throws -> Void) throws -> Int64 {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = url.appendingPathExtension("partial-\(UUID().uuidString)")
        do {
            try make(partial)
            guard rename(partial.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    private static func make(_ url: URL, with make: @Sendable (URL) async throws -> Void) async throws -> Int64 {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = url.appendingPathExtension("partial-\(UUID().uuidString)")
        do {
            try await make(partial)
            guard rename(partial.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    private func markUsed(_ key: String) {
        useCounter += 1
        entries[key]?.lastUse = useCounter
        // The access time records the use on disk; the modification time is left alone (UTIME_OMIT).
        var times = [timespec(tv_sec: 0, tv_nsec: Self.utimeNow), timespec(tv_sec: 0, tv_nsec: Self.utimeOmit)]
        _ = utimensat(AT_FDCWD, key, &times, 0)
    }

    /// Linux's UTIME_NOW and UTIME_OMIT (macros Swift does not import).
    private static let utimeNow = (1 << 30) - 1
    private static let utimeOmit = (1 << 30) - 2

    private func unpin(_ key: String) {
        let count = (pins[key] ?? 1) - 1
        pins[key] = count > 0 ? count : nil
        if count <= 0 { evictIfOverQuota() }
    }

    private func forget(_ key: String) {
        if let entry = entries.removeValue(forKey: key) { totalBytes -= entry.size }
    }

    /// Removes the least recently used files not in use until the folder fits its quota.
    private func evictIfOverQuota() {
        while totalBytes > quota {
            guard let oldest = entries.filter({ pins[$0.key] == nil }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return }
            unlink(oldest)
            forget(oldest)
        }
    }

    /// The files already in `folder`, ordered by access time; leftovers of interrupted makings are removed.
    private static func scan(_ folder: URL) -> [String: Entry] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentAccessDateKey]
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else { return [:] }
        var files: [(path: String, size: Int64, accessed: Date)] = []
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            if url.lastPathComponent.contains(".partial-") {
                try? FileManager.default.removeItem(at: url)
                continue
            }
            files.append((url.path, Int64(values.fileSize ?? 0), values.contentAccessDate ?? .distantPast))
        }
        files.sort { $0.accessed < $1.accessed }
        var entries: [String: Entry] = [:]
        for (index, file) in files.enumerated() { entries[file.path] = Entry(size: file.size, lastUse: UInt64(index + 1)) }
        return entries
    }
}

import Foundation
import Metrics
import Synchronization

/// The disk tier of `RenditionStore`: derived files (transcodes, stripped copies, thumbnails), kept
/// under the names `RenditionKey` gives them, so that they are made once and reused. Two requests
/// for the same derivative share one making of it. A file named `n` lives in the subfolder named
/// by the first two characters of `n` (a content hash's, for a rendition).
///
/// The folder holds at most `quota` bytes: when a new file takes it over, the least recently used
/// files are removed until it is back under nine tenths of it (so that a scan frees room for many
/// more files). Use is recorded on disk only, as each file's access time, set explicitly to a
/// strictly increasing stamp (whatever the mount's atime policy or its clock's granularity); the
/// modification time stays the time the file was made. Nothing per file is kept in memory: a
/// library of a million assets has a million thumbnails, and an index of them would grow the
/// picker's memory with the library (`bench scale` prints its peak). Eviction scans the folder on the
/// pool instead. A file in use (inside `withFile`) is never removed, so the folder can be over its
/// quota by the files being read at that moment.
///
/// Every derivative is made on `pool`, never on a cooperative thread, except transcodes, which run
/// as child processes under their own budget and slots (`file(named:make:)`).
///
/// With a `shared` store behind it (derived files in the object store), a missing derivative is
/// fetched from there before it is made, and one made here is handed to it for upload once
/// complete: the folder is then a cache of the store, and the store is shared by every picker.
/// Pickers sharing one database make each such derivative once (`claims`): the others wait for the
/// maker's upload and fetch it.
actor DerivativeCache {
    let folder: URL
    /// `folder`'s path: a derivative's URL is built from it as a string, skipping the checks of
    /// `appendingPathComponent` (names are `RenditionKey.fileName`s: a hex hash and our own kind names).
    private let folderPath: String
    let quota: Int64
    let pool: BlockingWorkPool
    /// The store behind the folder, shared by every picker of the library; nil keeps derivatives here only.
    nonisolated let shared: SharedDerivatives?
    /// Who makes a derivative that the shared store lacks, when other pickers may be making it too.
    nonisolated let claims: any DerivativeClaims

    /// The cached files' bytes as last counted: a scan corrects what removals behind the cache's
    /// back (`AssetRemoval`) left counted.
    private var totalBytes: Int64
    /// The last use stamp given, in nanoseconds since 1970 (an access time); `cachedBytes` gives
    /// stamps too, outside the actor.
    private let lastStamp: Atomic<Int64>
    private var pins: [String: Int] = [:]
    private var inFlight: [String: Task<Int64, Error>] = [:]
    /// While an eviction scans: the files used meanwhile (kept) and the bytes made meanwhile.
    private var eviction: (used: Set<String>, added: Int64)?

    private static let made = Counter(label: "lightbox_derivatives_made_total")

    init(folder: URL, quota: Int64, pool: BlockingWorkPool, shared: SharedDerivatives? = nil,
         claims: any DerivativeClaims = InProcessDerivativeClaims()) {
        self.folder = folder
        folderPath = folder.path
        self.quota = max(quota, 0)
        self.pool = pool
        self.shared = shared
        self.claims = claims
        let found = Self.scan(folder, pinned: [])
        totalBytes = found.totalBytes
        lastStamp = Atomic(found.newestStamp)
    }

    /// Bytes the cached files take now.
    var size: Int64 { totalBytes }

    /// Runs `use` with the derivative named `name`, made first by `make(destination)` on the pool
    /// when missing. The file stays while `use` runs.
    func withFile<Result: Sendable>(
        named name: String, make: @escaping @Sendable (URL) throws -> Void,
        _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let pool = self.pool
        return try await withFile(named: name, producing: { url in
            try await pool.run { try Self.makeBlocking(url, with: make) }
        }, use)
    }

    /// Runs `use` with the derivative named `name`, made when missing by `make(source, destination)`
    /// on the pool from the asset's original, brought to hand by `store` only then (an original in an
    /// object store is fetched to its cache only when a derivative must be made from it).
    func withFile<Result: Sendable>(
        named name: String, from original: OriginalFile, in store: any OriginalStore,
        make: @escaping @Sendable (URL, URL) throws -> Void, _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let pool = self.pool
        return try await withFile(named: name, producing: { url in
            try await store.withLocalFile(original) { source in
                try await pool.run { try Self.makeBlocking(url) { try make(source, $0) } }
            }
        }, use)
    }

    /// The derivative named `name`, made by an async `make` that bounds its own work (a transcode
    /// runs as a budgeted child process in a transcode slot, so it only awaits here and holds no
    /// pool thread). The file is not kept from eviction after this returns: open it at once.
    func file(named name: String, make: @escaping @Sendable (URL) async throws -> Void) async throws -> URL {
        try await withFile(named: name, producing: { url in try await Self.make(url, with: make) }) { $0 }
    }

    private func withFile<Result: Sendable>(
        named name: String, producing produce: @escaping @Sendable (URL) async throws -> Int64,
        _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let url = url(named: name)
        let key = url.path
        pins[key, default: 0] += 1
        let result: Result
        do {
            if !FileManager.default.fileExists(atPath: key) {
                if let running = inFlight[key] {
                    _ = try await running.value
                } else {
                    let task = Task { [shared, claims] in try await Self.obtain(name, at: url, from: shared, claims: claims, producing: produce) }
                    inFlight[key] = task
                    defer { inFlight[key] = nil }
                    added(try await task.value)
                }
            }
            markUsed(key)
            await evictIfOverQuota()
            result = try await use(url)
        } catch {
            unpin(key)
            await evictIfOverQuota()
            throw error
        }
        unpin(key)
        await evictIfOverQuota()
        return result
    }

    /// Runs `use` with the derivative named `name` if the folder holds it, kept meanwhile (its use is
    /// not recorded: an upload reads it); nil when it is not there.
    func withExistingFile<Result: Sendable>(named name: String, _ use: @Sendable (URL) async throws -> Result) async throws -> Result? {
        let url = url(named: name)
        let key = url.path
        guard FileManager.default.fileExists(atPath: key) else { return nil }
        pins[key, default: 0] += 1
        defer { unpin(key) }
        return try await use(url)
    }

    /// The bytes of the derivative named `name` when it is cached and at most `maximumBytes` long,
    /// read at once on the calling thread; nil otherwise (make or read it through `withFile`). The use is recorded on the open file: a cached thumbnail costs its
    /// request no trip to the cache's executor and back (a thread hand-off each way, twice). An
    /// eviction that removes the file meanwhile does no harm to this read: the file was open.
    nonisolated func cachedBytes(named name: String, maximumBytes: Int) -> Data? {
        let descriptor = open(path(named: name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size <= maximumBytes else { return nil }
        var data = Data(count: Int(status.st_size))
        let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count == data.count else { return nil }
        // Recorded on the open file: an eviction scanning right now may still remove it (it was
        // used, but the scan's list of files used meanwhile is the actor's); a thumbnail made
        // again is the cost, and only while the folder is over its quota.
        var times = Self.accessTimes(Self.nextStamp(after: lastStamp))
        _ = futimens(descriptor, &times)
        return data
    }

    /// Where the derivative named `name` is kept, made or not.
    nonisolated func url(named name: String) -> URL {
        URL(fileURLWithPath: path(named: name), isDirectory: false)
    }

    private nonisolated func path(named name: String) -> String {
        "\(folderPath)/\(name.prefix(2))/\(name)"
    }

    /// Counts files made at `url(named:)` by `makeBlocking` outside `withFile` (an import makes
    /// each image's thumbnail in the same pool job that stores the image), evicting if over quota.
    func counted(madeElsewhere bytes: Int64) async {
        added(bytes)
        await evictIfOverQuota()
    }

    // MARK: - Steps

    /// The derivative `name` at `url`: fetched from the shared store when it has it, else made by
    /// `produce` (once among the pickers, as `claims` decide) and handed to the store. Returns its size.
    private static func obtain(_ name: String, at url: URL, from shared: SharedDerivatives?, claims: any DerivativeClaims,
                               producing produce: @escaping @Sendable (URL) async throws -> Int64) async throws -> Int64 {
        if let size = try await fetch(name, to: url, from: shared) { return size }
        return try await claims.once(name, fetch: { try await fetch(name, to: url, from: shared) }) {
            let size = try await produce(url)
            made.increment()
            // Pickers waiting for it look for it in the store once the claim is released.
            if claims.othersWait, let shared { await shared.uploadNow(name, from: url) } else { shared?.upload(name) }
            return size
        }
    }

    /// The derivative `name` fetched from the shared store to `url`; nil when the store lacks it
    /// (or is left alone after failing). Returns its size.
    private static func fetch(_ name: String, to url: URL, from shared: SharedDerivatives?) async throws -> Int64? {
        guard let shared, !shared.isPaused else { return nil }
        do {
            return try await make(url) { partial in
                guard await shared.fetch(name, to: partial) else { throw NotInSharedStore() }
            }
        } catch is NotInSharedStore {
            return nil
        }
    }

    /// The shared store has no such derivative (or did not answer): it is made here.
    private struct NotInSharedStore: Error {}

    /// Makes the file through a temporary beside it (renamed into place, so readers see it whole
    /// or not at all); returns its size.
    static func makeBlocking(_ url: URL, with make: (URL) throws -> Void) throws -> Int64 {
        try IngestedFile.createFolder(url.deletingLastPathComponent())
        let partial = url.appendingPathExtension("partial-\(UUID().uuidString)")
        do {
            try make(partial)
            guard rename(partial.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        return fileSize(url)
    }

    private static func make(_ url: URL, with make: @Sendable (URL) async throws -> Void) async throws -> Int64 {
        try IngestedFile.createFolder(url.deletingLastPathComponent())
        let partial = url.appendingPathExtension("partial-\(UUID().uuidString)")
        do {
            try await make(partial)
            guard rename(partial.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        return fileSize(url)
    }

    /// A file's size by `stat` (FileManager's attributes also look up the owner's and group's names).
    private static func fileSize(_ url: URL) -> Int64 {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Writes a derivative's bytes without syncing them: a derivative can be made again, and an
    /// fsync per thumbnail cost the import a journal commit per asset. (`Data.write(to:)` syncs.)
    /// The caller's `make` writes to a temporary file that is renamed into place.
    static func write(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        try handle.write(contentsOf: data)
    }

    private func added(_ size: Int64) {
        totalBytes += size
        if eviction != nil { eviction?.added += size }
    }

    private func markUsed(_ key: String) {
        eviction?.used.insert(key)
        var times = Self.accessTimes(Self.nextStamp(after: lastStamp))
        _ = utimensat(AT_FDCWD, key, &times, 0)
    }

    /// A stamp later than every earlier one, even within one tick of the file system's clock.
    private static func nextStamp(after last: borrowing Atomic<Int64>) -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let clock = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        var previous = last.load(ordering: .relaxed)
        while true {
            let stamp = max(clock, previous + 1)
            let (exchanged, original) = last.compareExchange(expected: previous, desired: stamp, ordering: .relaxed)
            if exchanged { return stamp }
            previous = original
        }
    }

    /// `stamp` as the access time, the modification time left alone (UTIME_OMIT): the access time
    /// records the use on disk.
    private static func accessTimes(_ stamp: Int64) -> [timespec] {
        [timespec(tv_sec: Int(stamp / 1_000_000_000), tv_nsec: Int(stamp % 1_000_000_000)), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
    }

    /// Linux's UTIME_OMIT (a macro Swift does not import).
    private static let utimeOmit = (1 << 30) - 2

    private func unpin(_ key: String) {
        let count = (pins[key] ?? 1) - 1
        pins[key] = count > 0 ? count : nil
    }

    /// When over the quota, removes the least recently used files not in use until the folder fits
    /// nine tenths of it. The folder is scanned on the pool; one eviction runs at a time (the others
    /// return at once), and a file used while it scans is kept.
    private func evictIfOverQuota() async {
        guard totalBytes > quota, eviction == nil else { return }
        eviction = (used: [], added: 0)
        defer { eviction = nil }
        let folder = self.folder
        let pinned = Set(pins.keys)
        let target = quota / 10 * 9
        guard let found = try? await pool.run({ Self.scan(folder, pinned: pinned, toFree: { $0 - target }) }) else { return }
        totalBytes = found.totalBytes + (eviction?.added ?? 0)
        let used = eviction?.used ?? []
        for candidate in found.oldest where totalBytes > target {
            guard pins[candidate.path] == nil, !used.contains(candidate.path) else { continue }
            if unlink(candidate.path) == 0 { totalBytes -= candidate.size }
        }
    }

    /// What a scan of the folder found: the bytes of its files, the newest use stamp, and (when
    /// asked to free bytes) the least recently used files not in `pinned` that free them, oldest first.
    struct Scan: Sendable {
        var totalBytes: Int64 = 0
        var newestStamp: Int64 = 0
        var oldest: [(path: String, size: Int64)] = []
    }

    /// Scans `folder` (blocking): leftovers of interrupted makings are removed. With `toFree`
    /// (bytes to free, given the total), a second pass collects the oldest files that free them;
    /// the first keeps only each file's stamp and size, so a scan of a million files holds 16 MB.
    private static func scan(_ folder: URL, pinned: Set<String>, toFree: ((Int64) -> Int64)? = nil) -> Scan {
        var result = Scan()
        var uses: [(stamp: Int64, size: Int64)] = []
        forEachFile(in: folder) { path, status in
            if path.contains(".partial-") {
                unlink(path)
                return
            }
            let stamp = Int64(status.st_atim.tv_sec) * 1_000_000_000 + Int64(status.st_atim.tv_nsec)
            result.totalBytes += Int64(status.st_size)
            result.newestStamp = max(result.newestStamp, stamp)
            if toFree != nil, !pinned.contains(path) { uses.append((stamp, Int64(status.st_size))) }
        }
        guard let toFree else { return result }
        var needed = toFree(result.totalBytes)
        guard needed > 0 else { return result }
        uses.sort { $0.stamp < $1.stamp }
        // The newest stamp to remove: the oldest files up to it free `needed` bytes.
        var cutoff = Int64.min
        for use in uses where needed > 0 {
            cutoff = use.stamp
            needed -= use.size
        }
        uses = []
        var oldest: [(path: String, size: Int64, stamp: Int64)] = []
        forEachFile(in: folder) { path, status in
            let stamp = Int64(status.st_atim.tv_sec) * 1_000_000_000 + Int64(status.st_atim.tv_nsec)
            if stamp <= cutoff, !pinned.contains(path) { oldest.append((path, Int64(status.st_size), stamp)) }
        }
        result.oldest = oldest.sorted { $0.stamp < $1.stamp }.map { ($0.path, $0.size) }
        return result
    }

    /// Calls `body` with the path and status of every regular file below `folder`.
    private static func forEachFile(in folder: URL, _ body: (String, stat) -> Void) {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return }
        let base = folder.path
        while let relative = enumerator.nextObject() as? String {
            let path = base + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            body(path, status)
        }
    }
}

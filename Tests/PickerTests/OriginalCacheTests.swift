import Foundation
import Testing
@testable import Picker

/// The bounded cache in front of an object store: byte and file limits, least recently used first,
/// copies in use kept, one fetch for concurrent readers, private on disk, rebuilt from its folder.
struct OriginalCacheTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("original-cache-\(UUID().uuidString)")

    /// A fetch that writes `size` bytes and counts its calls.
    final class Fetches: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var calls: Int { lock.withLock { count } }

        func fetch(_ size: Int) -> @Sendable (URL) async throws -> Void {
            { [self] partial in
                lock.withLock { count += 1 }
                try Data(repeating: 7, count: size).write(to: partial)
            }
        }
    }

    func files(in cache: OriginalCache) -> [String] {
        (FileManager.default.subpaths(atPath: cache.folder.path) ?? []).filter { !$0.hasSuffix("/") && $0.contains(".") }.sorted()
    }

    @Test func keepsWithinBothLimitsRemovingTheLeastRecentlyUsed() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try OriginalCache(folder: folder, limits: .init(bytes: 250, count: 3))
        let fetches = Fetches()
        for name in ["aa/1.jpg", "bb/2.jpg"] {
            _ = try await cache.withFile(name, fetch: fetches.fetch(100)) { try Data(contentsOf: $0).count }
        }
        // Using the first makes the second the least recently used: the third copy evicts it (bytes).
        _ = try await cache.withFile("aa/1.jpg", fetch: fetches.fetch(100)) { $0 }
        _ = try await cache.withFile("cc/3.jpg", fetch: fetches.fetch(100)) { $0 }
        #expect(files(in: cache) == ["aa/1.jpg", "cc/3.jpg"])
        #expect(await cache.totalBytes == 200)
        #expect(fetches.calls == 3)

        // Small copies: the file limit.
        for name in ["dd/4.jpg", "ee/5.jpg", "ff/6.jpg"] {
            _ = try await cache.withFile(name, fetch: fetches.fetch(10)) { $0 }
        }
        #expect(files(in: cache) == ["dd/4.jpg", "ee/5.jpg", "ff/6.jpg"])
        #expect(await cache.count == 3)
    }

    @Test func aCopyInUseIsKeptAndConcurrentReadersShareOneFetch() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try OriginalCache(folder: folder, limits: .init(bytes: 100, count: 1))
        let fetches = Fetches()
        try await cache.withFile("aa/big.mov", fetch: fetches.fetch(500)) { big in
            // Over both limits while in use: the copy stays until its reader is done.
            _ = try await cache.withFile("bb/other.jpg", fetch: fetches.fetch(10)) { $0 }
            #expect(FileManager.default.fileExists(atPath: big.path))
        }
        #expect(!files(in: cache).contains("aa/big.mov"))

        async let first = cache.withFile("cc/shared.jpg", fetch: fetches.fetch(10)) { try Data(contentsOf: $0).count }
        async let second = cache.withFile("cc/shared.jpg", fetch: fetches.fetch(10)) { try Data(contentsOf: $0).count }
        #expect(try await [first, second] == [10, 10])
        #expect(fetches.calls == 3)
    }

    @Test func isPrivateAndRebuiltFromItsFolderWithoutPartialCopies() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try OriginalCache(folder: folder, limits: .init(bytes: 1000, count: 10))
        let copy = try await cache.withFile("aa/1.jpg", fetch: Fetches().fetch(100)) { $0 }
        var status = stat()
        #expect(stat(folder.path, &status) == 0 && status.st_mode & 0o077 == 0)
        #expect(stat(copy.path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        try Data(count: 5).write(to: folder.appendingPathComponent("aa/2.jpg.partial-x"))

        let reopened = try OriginalCache(folder: folder, limits: .init(bytes: 1000, count: 10))
        #expect(await reopened.count == 1)
        #expect(await reopened.totalBytes == 100)
        #expect(await reopened.contains("aa/1.jpg"))
        #expect(files(in: reopened) == ["aa/1.jpg"])
    }
}

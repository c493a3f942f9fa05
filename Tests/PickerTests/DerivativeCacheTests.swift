import Foundation
import LightboxProtocol
import Testing
@testable import Picker

@Suite struct DerivativeCacheTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("derived-\(UUID().uuidString)")
    let pool = BlockingWorkPool(threadCount: 2, maximumWaiting: 16, name: "test-render")

    /// Makes (or reuses) a 100-byte derivative and reads it back.
    func use(_ cache: DerivativeCache, _ kind: String, made: Counter) async throws -> Int {
        try await cache.withFile(named: "abcdef.\(kind)") { destination in
            made.increment()
            try Data(repeating: 7, count: 100).write(to: destination)
        } _: { url in try Data(contentsOf: url).count }
    }

    func exists(_ kind: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("ab/abcdef.\(kind)").path)
    }

    @Test func theLeastRecentlyUsedFilesGoWhenTheQuotaIsExceeded() async throws {
        defer { try? FileManager.default.removeItem(at: folder); pool.stop() }
        let made = Counter()
        let cache = DerivativeCache(folder: folder, quota: 250, pool: pool)
        #expect(try await use(cache, "a", made: made) == 100)
        #expect(try await use(cache, "b", made: made) == 100)
        #expect(try await use(cache, "a", made: made) == 100)  // a is now the most recent
        #expect(made.value == 2)
        #expect(try await use(cache, "c", made: made) == 100)  // 300 bytes > 250: b, the oldest, goes
        #expect(exists("a") && !exists("b") && exists("c"))
        #expect(await cache.size == 200)
        #expect(try await use(cache, "b", made: made) == 100)  // made again; a is now the oldest
        #expect(made.value == 4)
        #expect(!exists("a") && exists("b") && exists("c"))

        // A new cache on the same folder counts what is there and keeps the order of use.
        let reopened = DerivativeCache(folder: folder, quota: 250, pool: pool)
        #expect(await reopened.size == 200)
        #expect(try await use(reopened, "d", made: made) == 100)
        #expect(!exists("c") && exists("b") && exists("d"))
    }

    @Test func aFileInUseIsNotRemovedAndAFileLargerThanTheQuotaIsRemovedAfterUse() async throws {
        defer { try? FileManager.default.removeItem(at: folder); pool.stop() }
        let made = Counter()
        let cache = DerivativeCache(folder: folder, quota: 150, pool: pool)
        let readInside = try await cache.withFile(named: "abcdef.outer") { destination in
            try Data(repeating: 1, count: 100).write(to: destination)
        } _: { outer in
            // Another derivative made while `outer` is read: the quota is exceeded, but `outer` stays.
            _ = try await use(cache, "inner", made: made)
            return try Data(contentsOf: outer).count
        }
        #expect(readInside == 100)
        #expect(await cache.size <= 150)

        let big = try await cache.withFile(named: "abcdef.big") { destination in
            try Data(repeating: 2, count: 400).write(to: destination)
        } _: { try Data(contentsOf: $0).count }
        #expect(big == 400)
        #expect(!exists("big"))
        #expect(await cache.size <= 150)
    }

    func accessStamp(_ kind: String) -> Int64 {
        var status = stat()
        guard stat(folder.appendingPathComponent("ab/abcdef.\(kind)").path, &status) == 0 else { return -1 }
        return Int64(status.st_atim.tv_sec) * 1_000_000_000 + Int64(status.st_atim.tv_nsec)
    }

    /// A cached file small enough is read in place, and that read counts as a use for eviction.
    @Test func cachedBytesAreReadInPlaceAndCountAsAUse() async throws {
        defer { try? FileManager.default.removeItem(at: folder); pool.stop() }
        let made = Counter()
        let cache = DerivativeCache(folder: folder, quota: 250, pool: pool)
        #expect(cache.cachedBytes(named: "abcdef.a", maximumBytes: 1000) == nil, "not made yet")
        _ = try await use(cache, "a", made: made)
        _ = try await use(cache, "b", made: made)
        #expect(cache.cachedBytes(named: "abcdef.a", maximumBytes: 99) == nil, "larger than asked for")
        #expect(cache.cachedBytes(named: "abcdef.a", maximumBytes: 100) == Data(repeating: 7, count: 100))
        // The use is recorded after the read returns; a liveness bound, not a timing one.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while accessStamp("a") <= accessStamp("b"), clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(accessStamp("a") > accessStamp("b"))
        _ = try await use(cache, "c", made: made)  // over the quota: b, now the least recently used, goes
        #expect(exists("a") && !exists("b") && exists("c"))
        #expect(made.value == 3)
    }

    @Test func filesRemovedBehindTheCachesBackAreRecountedWhenItScans() async throws {
        defer { try? FileManager.default.removeItem(at: folder); pool.stop() }
        let made = Counter()
        let cache = DerivativeCache(folder: folder, quota: 250, pool: pool)
        _ = try await use(cache, "a", made: made)
        _ = try await use(cache, "b", made: made)
        // An asset's removal deletes its derived files without telling the cache.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("ab/abcdef.a"))
        #expect(await cache.size == 200, "still counted")
        _ = try await use(cache, "c", made: made)  // 300 counted, over the quota: the scan finds 200
        #expect(exists("b") && exists("c"), "nothing had to go")
        #expect(await cache.size == 200)
    }

    @Test func theWorkRunsOnThePoolsThreads() async throws {
        defer { try? FileManager.default.removeItem(at: folder); pool.stop() }
        let cache = DerivativeCache(folder: folder, quota: 1 << 20, pool: pool)
        let name = try await cache.withFile(named: "abcdef.thread") { destination in
            try Data((Thread.current.name ?? "").utf8).write(to: destination)
        } _: { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }
        #expect(name.hasPrefix("test-render-"))
    }
}

/// A count shared with the pool's threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

@Suite struct BlockingWorkPoolTests {
    @Test func atMostThreadCountJobsRunAtOnce() async throws {
        let pool = BlockingWorkPool(threadCount: 2, maximumWaiting: 100, name: "test-pool")
        defer { pool.stop() }
        let running = Concurrency()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await pool.run {
                        running.enter()
                        Thread.sleep(forTimeInterval: 0.005)
                        running.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        print("pool of 2: at most \(running.highest) job(s) ran at once, \(running.total) in all")
        #expect(running.highest <= 2)
        #expect(running.total == 20)
    }

    @Test func aJobBeyondTheThreadsAndTheWaitingRoomIsRefusedWithBusy() async throws {
        let pool = BlockingWorkPool(threadCount: 1, maximumWaiting: 0, name: "test-tiny")
        defer { pool.stop() }
        let gate = Gate()
        let started = Gate()
        async let held: Void = pool.run {
            started.open()
            gate.wait()
        }
        await Task.detached { started.wait() }.value
        #expect(await errorCode { try await pool.run { } } == .busy)
        gate.open()
        try await held
        // With the thread free again, work is accepted.
        #expect(try await pool.run { 42 } == 42)
    }

    @Test func stoppingRefusesNewJobsAndStillRunsTheAcceptedOnes() async throws {
        let pool = BlockingWorkPool(threadCount: 1, maximumWaiting: 4, name: "test-stop")
        let gate = Gate()
        let started = Gate()
        async let running: Int = pool.run {
            started.open()
            gate.wait()
            return 1
        }
        await Task.detached { started.wait() }.value
        // Accepted before the stop: it waits behind the running job, and still runs.
        async let waiting: Int = pool.run { 2 }
        try await Task.sleep(for: .milliseconds(50))
        pool.stop()
        #expect(await errorCode { try await pool.run { } } == .cancelled)
        gate.open()
        #expect(try await running == 1)
        #expect(try await waiting == 2)
    }

    @Test func aJobRunsOnAPoolThreadBehindRequests() async throws {
        let pool = BlockingWorkPool(threadCount: 1, maximumWaiting: 0, name: "test-name")
        defer { pool.stop() }
        let (name, niceness) = try await pool.run {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "",
             getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(name.hasPrefix("test-name-"))
        #expect(niceness == BlockingWorkPool.niceness, "requests' threads go first")
    }
}

func errorCode(_ operation: () async throws -> Void) async -> ErrorCode? {
    do {
        try await operation()
        return nil
    } catch let error as LightboxError {
        return error.code
    } catch {
        return nil
    }
}

/// How many jobs run at once, and the most seen.
final class Concurrency: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private var maximum = 0
    private var count = 0
    var highest: Int { lock.withLock { maximum } }
    var total: Int { lock.withLock { count } }
    func enter() { lock.withLock { now += 1; count += 1; maximum = max(maximum, now) } }
    func leave() { lock.withLock { now -= 1 } }
}

/// A one-shot gate threads can wait on.
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    func open() { condition.lock(); isOpen = true; condition.broadcast(); condition.unlock() }
    func wait() { condition.lock(); while !isOpen { condition.wait() }; condition.unlock() }
}

import Foundation
import GRDB
import LightboxStorage
import Synchronization
import Testing

/// A task executor with one thread, as a connection's event loop is to its requests' handlers.
private final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init() {
        Thread.detachNewThread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}

private final class Answers: Sendable {
    let names = Mutex<[String]>([])
}

@Suite struct PointReadTests {
    /// A point read that finds no connection of its own blocks its thread while it waits for one
    /// of the pool's readers (`read`, as here). The reader it waits for is held by an asynchronous
    /// read whose task runs on that same thread: the asynchronous read must give the reader back
    /// without needing the blocked thread (GRDB's own `async read` would not, and both would wait
    /// for ever).
    @Test func aPointReadWaitingForAReaderDoesNotDeadlockTheReadsOnItsThread() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("point-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = Configuration()
        configuration.maximumReaderCount = 1
        let pool = try DatabasePool(path: folder.appendingPathComponent("test.sqlite").path, configuration: configuration)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO item VALUES (1, 'one')")
        }

        let loop = OneThreadExecutor()
        let reading = DispatchSemaphore(value: 0)
        let finishRead = DispatchSemaphore(value: 0)
        let pointReadStarted = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let answers = Answers()

        // Holds the only reader until told to finish.
        Task(executorPreference: loop) { @Sendable in
            let name = try await pool.detachedRead { db in
                reading.signal()
                finishRead.wait()
                return try String.fetchOne(db, sql: "SELECT name FROM item WHERE id = 1") ?? ""
            }
            answers.names.withLock { $0.append("detached \(name)") }
            finished.signal()
        }
        reading.wait()
        // Occupies the loop's thread, waiting for the reader the read above holds.
        Task(executorPreference: loop) { @Sendable in
            pointReadStarted.signal()
            let name = try pool.read { db in try String.fetchOne(db, sql: "SELECT name FROM item WHERE id = 1") ?? "" }
            answers.names.withLock { $0.append("point \(name)") }
            finished.signal()
        }
        pointReadStarted.wait()
        finishRead.signal()

        // Not a timing bound: with the deadlock, neither would ever finish; a minute tells that apart.
        let bothFinished = finished.wait(timeout: .now() + 60) == .success && finished.wait(timeout: .now() + 60) == .success
        #expect(bothFinished, "the point read and the asynchronous read wait for each other")
        #expect(answers.names.withLock { $0.sorted() } == ["detached one", "point one"])
    }

    static func makePool(named name: String, value: String) throws -> (DatabasePool, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("point-read-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: folder.appendingPathComponent("test.sqlite").path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO item VALUES (1, ?)", arguments: [value])
        }
        return (pool, folder)
    }

    static func name(in pool: DatabasePool) throws -> String? {
        try pool.pointRead { db in try String.fetchOne(db, sql: "SELECT name FROM item WHERE id = 1") }
    }

    /// A thread's own connection reads what the pool committed last, and never another pool's
    /// database: not a second pool's on the same thread, nor a new pool's after the first is gone.
    @Test func aThreadsOwnConnectionReadsItsPoolsLatestCommit() throws {
        var (first, firstFolder) = try Self.makePool(named: "first", value: "one")
        defer { try? FileManager.default.removeItem(at: firstFolder) }
        #expect(try Self.name(in: first) == "one")
        try first.write { db in try db.execute(sql: "UPDATE item SET name = 'uno' WHERE id = 1") }
        #expect(try Self.name(in: first) == "uno", "a commit after the connection was opened")

        let (second, secondFolder) = try Self.makePool(named: "second", value: "two")
        defer { try? FileManager.default.removeItem(at: secondFolder) }
        #expect(try Self.name(in: second) == "two")
        #expect(try Self.name(in: first) == "uno")

        // A pool made after the first is released may get its address; it still reads its own file.
        first = try Self.makePool(named: "third", value: "three").0
        #expect(try Self.name(in: first) == "three")
        #expect(try Self.name(in: second) == "two")
    }

    /// The statements of one point read see one snapshot, whatever commits between them; a read
    /// that throws leaves its connection ready for the next.
    @Test func aPointReadSeesOneSnapshot() throws {
        let (pool, folder) = try Self.makePool(named: "snapshot", value: "before")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (first, second) = try pool.pointRead { db in
            let first = try String.fetchOne(db, sql: "SELECT name FROM item WHERE id = 1")
            try pool.write { db in try db.execute(sql: "UPDATE item SET name = 'after' WHERE id = 1") }
            return (first, try String.fetchOne(db, sql: "SELECT name FROM item WHERE id = 1"))
        }
        #expect(first == "before" && second == "before")
        #expect(try Self.name(in: pool) == "after")

        struct Failure: Error {}
        #expect(throws: Failure.self) { try pool.pointRead { db in _ = try String.fetchOne(db, sql: "SELECT name FROM item"); throw Failure() } }
        #expect(throws: DatabaseError.self) { try pool.pointRead { db in try db.execute(sql: "SELECT nonsense FROM nowhere") } }
        try pool.write { db in try db.execute(sql: "UPDATE item SET name = 'later' WHERE id = 1") }
        #expect(try Self.name(in: pool) == "later")
    }

    /// Many threads making point reads at once: each gets its answer, and no more than
    /// `maximumConnections` connections are ever open (the rest read through the pool).
    @Test func connectionsAreBoundedAndReadsBeyondTheBoundUseThePool() throws {
        let (pool, folder) = try Self.makePool(named: "many", value: "many")
        defer { try? FileManager.default.removeItem(at: folder) }
        let threads = ThreadReaders.maximumConnections + 8
        let answers = Answers()
        let done = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            // Threads kept alive until all have read, so none hands its identity to a later one.
            Thread.detachNewThread {
                let name = (try? Self.name(in: pool)) ?? "failed"
                answers.names.withLock { $0.append(name) }
                done.signal()
                release.wait()
            }
        }
        for _ in 0..<threads { done.wait() }
        #expect(ThreadReaders.shared.count <= ThreadReaders.maximumConnections)
        for _ in 0..<threads { release.signal() }
        #expect(answers.names.withLock { $0 } == Array(repeating: "many", count: threads))
    }
}

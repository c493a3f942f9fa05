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
    /// A point read blocks its thread while it waits for a reader. The reader it waits for is held
    /// by an asynchronous read whose task runs on that same thread: the asynchronous read must give
    /// the reader back without needing the blocked thread (GRDB's own `async read` would not, and
    /// both would wait for ever).
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
            let name = try pool.pointRead { db in try String.fetchOne(db, sql: "SELECT name FROM item WHERE id = 1") ?? "" }
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
}

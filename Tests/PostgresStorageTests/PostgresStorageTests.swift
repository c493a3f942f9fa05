import Foundation
import LightboxPostgres
import LightboxProtocol
import Logging
import PostgresNIO
import TestServers
import Testing

/// The PostgreSQL groundwork of `--database postgres://…`, against a real server (`initdb` in a
/// temporary folder, started for the suite): locations, bounded transactions, and migrations applied
/// exactly once even by several processes starting together.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
final class PostgresStorageTests: Sendable {
    let server: PostgresServer
    /// Errors only: the pool logs each failed attempt to connect, which one test makes on purpose.
    let logger = { var logger = Logger(label: "test.postgres"); logger.logLevel = .error; return logger }()

    init() async throws {
        server = try await PostgresServer.start()
    }

    deinit {
        server.stop()
    }

    /// Runs `body` with a running pool to a new database.
    func withDatabase<Result: Sendable>(
        _ name: String? = nil, timeLimit: Duration = .seconds(60), _ body: (PostgresStorage) async throws -> Result
    ) async throws -> Result {
        let database = PostgresStorage(location: try PostgresLocation(url: server.url(database: name ?? server.createDatabase())),
                                        timeLimit: timeLimit, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            return try await body(database)
        }
    }

    static func count(_ sql: String, in database: PostgresStorage) async throws -> Int {
        try await database.withConnection("count") { connection in
            var total = 0
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "count")).decode(Int.self) {
                total = value
            }
            return total
        }
    }

    static var twoTables: PostgresMigrator {
        var migrator = PostgresMigrator(table: "test_migration")
        migrator.register("v1 albums", ["CREATE TABLE album (identifier TEXT PRIMARY KEY, title TEXT NOT NULL)"])
        migrator.register("v2 counted", ["CREATE TABLE applied (n INTEGER NOT NULL)", "INSERT INTO applied (n) VALUES (1)"])
        return migrator
    }

    @Test func locationsParseAndSayWhatIsWrong() throws {
        let tcp = try PostgresLocation(url: "postgres://lightbox@db.example:6543/photos")
        #expect(tcp.server == .tcp(host: "db.example", port: 6543) && tcp.user == "lightbox" && tcp.database == "photos")
        let socket = try PostgresLocation(url: "postgresql://me@/library?host=/run/postgresql")
        #expect(socket.server == .socketFolder("/run/postgresql", port: 5432))
        #expect(try PostgresLocation(url: "postgres://me@localhost/x").server == .tcp(host: "localhost", port: 5432))
        for (url, says) in [("mysql://me@h/db", "not a postgres:// URL"), ("postgres://me:secret@h/db", "PGPASSWORD"),
                            ("postgres://h/db", "no user"), ("postgres://me@h/", "no database"), ("postgres://me@/db", "no server")] {
            #expect(throws: PostgresStorageError.self) { try PostgresLocation(url: url) }
            do { _ = try PostgresLocation(url: url) } catch { #expect(error.message.contains(says), "\(url): \(error.message)") }
        }
        // A password never shows in messages.
        #expect(!String(describing: tcp).contains("secret"))
    }

    @Test func migrationsApplyOnceAndInOrder() async throws {
        try await withDatabase { database in
            let first = try await Self.twoTables.migrate(database)
            #expect(first == ["v1 albums", "v2 counted"])
            let second = try await Self.twoTables.migrate(database)
            #expect(second == [])
            var grown = Self.twoTables
            grown.register("v3 favorites", ["ALTER TABLE album ADD COLUMN isFavorite BOOLEAN NOT NULL DEFAULT false"])
            let third = try await grown.migrate(database)
            #expect(third == ["v3 favorites"])
            let rows = try await Self.count("SELECT count(*)::INT FROM applied", in: database)
            #expect(rows == 1)
            let recorded = try await Self.count("SELECT count(*)::INT FROM test_migration", in: database)
            #expect(recorded == 3)
        }
    }

    @Test func eightPoolsStartingTogetherApplyEachMigrationOnce() async throws {
        let name = try server.createDatabase()
        // Eight pools with their own connections, as eight pickers starting at once would have.
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { try await self.withDatabase(name) { try await Self.twoTables.migrate($0) } }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(applied.filter { !$0.isEmpty } == [["v1 albums", "v2 counted"]])
        try await withDatabase(name) { database in
            let rows = try await Self.count("SELECT count(*)::INT FROM applied", in: database)
            #expect(rows == 1)
        }
    }

    @Test func aFailingMigrationLeavesNothingHalfDone() async throws {
        try await withDatabase { database in
            var broken = Self.twoTables
            broken.register("v3 broken", ["ALTER TABLE album ADD COLUMN", "SELECT 1"])
            do {
                try await broken.migrate(database)
                Issue.record("a broken migration was applied")
            } catch let error as PostgresStorageError {
                #expect(error.code == .internal)
                #expect(error.message.contains("refused"), "\(error.message)")
                #expect(error.cause?.contains("SQLSTATE 42601") == true, "\(error)")
            }
            // Nothing of the run is left: not v1 and v2 either, which ran in the same transaction.
            let tables = try await Self.count("SELECT count(*)::INT FROM pg_tables WHERE tablename IN ('album', 'applied')", in: database)
            #expect(tables == 0)
            let again = try await Self.twoTables.migrate(database)
            #expect(again == ["v1 albums", "v2 counted"])
        }
    }

    @Test func aTransactionThatThrowsIsRolledBackAndOneThatReturnsIsSeenByOthers() async throws {
        let name = try server.createDatabase()
        try await withDatabase(name) { database in
            try await Self.twoTables.migrate(database)
            struct Refused: Error {}
            await #expect(throws: PostgresStorageError.self) {
                try await database.transaction("add an album") { connection in
                    try await connection.query("INSERT INTO album (identifier, title) VALUES ('a', 'Family')", logger: Logger(label: "t"))
                    throw Refused()
                }
            }
            _ = try await database.transaction("add an album") { connection in
                try await connection.query("INSERT INTO album (identifier, title) VALUES ('b', 'Holidays')", logger: Logger(label: "t"))
            }
        }
        // Another pool (another process) sees the committed album only.
        try await withDatabase(name) { database in
            let holidays = try await Self.count("SELECT count(*)::INT FROM album WHERE identifier = 'b'", in: database)
            #expect(holidays == 1)
            let albums = try await Self.count("SELECT count(*)::INT FROM album", in: database)
            #expect(albums == 1)
        }
    }

    @Test func aServerThatIsDownGivesTimeoutWithASentence() async throws {
        let port = try FreePorts.take(1)[0]
        let database = PostgresStorage(location: PostgresLocation(server: .tcp(host: "127.0.0.1", port: port), user: "lightbox", database: "x"),
                                        timeLimit: .seconds(3), logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            let started = ContinuousClock.now
            do {
                try await Self.twoTables.migrate(database)
                Issue.record("a migration on a server that is down succeeded")
            } catch let error as PostgresStorageError {
                #expect(error.code == .timeout, "\(error)")
                #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
            }
            print("a server that is down answered after \(ContinuousClock.now - started)")
        }
    }
}

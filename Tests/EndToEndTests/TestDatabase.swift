import Foundation
import Synchronization
import TestServers

/// Where the services under test keep their state: SQLite files in their data folder (the default),
/// or, with `LIGHTBOX_TEST_DATABASE=postgres`, a fresh database per service on one real PostgreSQL
/// server that this test process starts on first use and stops when it exits. `make test` runs the
/// suites that matter for data both ways.
enum TestDatabase {
    static var isPostgres: Bool { ProcessInfo.processInfo.environment["LIGHTBOX_TEST_DATABASE"] == "postgres" }

    /// The options that put one service's state in the database under test: none for SQLite,
    /// `--database postgres://…/<new database>` for PostgreSQL (always when `postgres` is true,
    /// for tests that need a database several processes share).
    static func arguments(postgres: Bool = false) async throws -> [String] {
        guard postgres || isPostgres else { return [] }
        return ["--database", try await freshPostgresURL()]
    }

    /// A new, empty database on the shared server.
    static func freshPostgresURL() async throws -> String {
        let server = try await SharedPostgresServer.shared.server()
        return server.url(database: try server.createDatabase())
    }

    /// The shared server (for tests that kill or inspect it); started if it is not yet.
    static func postgresServer() async throws -> PostgresServer {
        try await SharedPostgresServer.shared.server()
    }
}

/// One PostgreSQL server per test process, started on first use, stopped at exit.
private actor SharedPostgresServer {
    static let shared = SharedPostgresServer()
    /// The one start, awaited by every caller: callers that come while it starts (the actor is
    /// free while it awaits) wait for the same server instead of starting one each.
    private var starting: Task<PostgresServer, any Error>?

    func server() async throws -> PostgresServer {
        if let starting { return try await starting.value }
        let start = Task {
            let server = try await PostgresServer.start()
            StopAtExit.register(server)
            return server
        }
        starting = start
        return try await start.value
    }
}

/// `atexit` takes a C function: the server to stop is kept here for it.
private enum StopAtExit {
    static let server = Mutex<PostgresServer?>(nil)

    static func register(_ started: PostgresServer) {
        let first = server.withLock { current in
            defer { current = started }
            return current == nil
        }
        if first { atexit { StopAtExit.server.withLock { $0?.stop() } } }
    }
}

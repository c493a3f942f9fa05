import Foundation
import LightboxPostgres
import LightboxProtocol
import Logging
import PostgresNIO
import Synchronization

/// lightbox-auth's state in a PostgreSQL database (`--database postgres://…`): what lets another
/// auth process, on another host, take over with nothing lost. Every update commits with its change
/// rows and audit line in one transaction before it returns.
///
/// Change tokens come from an identity column, and PostgreSQL hands out such numbers when a row is
/// inserted, not when its transaction commits: with two writers, token 8 can become visible before
/// token 7, and a reader that saw 8 would ask for "since 8" and never see 7. So every transaction
/// that adds change rows first takes one advisory lock (`lockChangeLog`), held until it commits:
/// such transactions run one at a time, tokens commit in order, and each reads the access it
/// changes as the previous one left it (as SQLite's single writer does).
struct PostgresAuthStorage: AuthStorage {
    private let pool: Pool
    let logger: Logger

    /// The connection pool, made when the storage is opened (`whileOpen`), not before: made earlier,
    /// its event-loop threads would start before the service group sets up its signal handling,
    /// and SIGTERM would never reach the service.
    private final class Pool: Sendable {
        let make: @Sendable () -> PostgresStorage
        let open = Mutex<PostgresStorage?>(nil)

        init(make: @escaping @Sendable () -> PostgresStorage) {
            self.make = make
        }
    }

    /// The storage at `location`, its pool made when opened.
    init(location: PostgresLocation, logger: Logger) {
        pool = Pool { PostgresStorage(location: location, logger: logger) }
        self.logger = logger
    }

    /// The storage on a pool made already (tests).
    init(_ storage: PostgresStorage, logger: Logger) {
        pool = Pool { storage }
        self.logger = logger
    }

    /// The open pool.
    var storage: PostgresStorage {
        get throws(PostgresStorageError) {
            guard let storage = pool.open.withLock({ $0 }) else {
                throw PostgresStorageError(code: .internal, message: "lightbox-auth used its database before opening it.")
            }
            return storage
        }
    }

    /// Runs the connection pool and brings the tables up to date, then `body`; the pool closes
    /// when `body` returns.
    func whileOpen(_ body: () async throws -> Void) async throws {
        let storage = pool.make()
        pool.open.withLock { $0 = storage }
        defer { pool.open.withLock { $0 = nil } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await storage.run() }
            defer { group.cancelAll() }
            try await PostgresAuthSchema.migrator.migrate(storage)
            try await body()
        }
    }

    /// The advisory lock every transaction that adds change rows holds (see the type's comment).
    func lockChangeLog(_ connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext('auth_change'))", logger: logger)
    }

    // MARK: Reading rows

    /// Every row `query` returns, decoded as `type` (one column's type, or a tuple of one per column).
    func all<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as type: (repeat each Column).Type, on connection: PostgresConnection
    ) async throws -> [(repeat each Column)] {
        var rows: [(repeat each Column)] = []
        for try await row in try await connection.query(query, logger: logger).decode(type) { rows.append(row) }
        return rows
    }

    /// The first row `query` returns, if any.
    func first<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as type: (repeat each Column).Type, on connection: PostgresConnection
    ) async throws -> (repeat each Column)? {
        for try await row in try await connection.query(query, logger: logger).decode(type) { return row }
        return nil
    }

    /// The one value of a query that returns one column that may be null (an aggregate over no
    /// rows, say); nil when null or when there is no row.
    func value<Value: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as type: Value.Type, on connection: PostgresConnection
    ) async throws -> Value? where Value._DecodableType == Value {
        for try await value in try await connection.query(query, logger: logger).decode(Value?.self) { return value }
        return nil
    }

    /// Reads on a connection of the pool, outside any transaction.
    func read<Result: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await storage.withConnection(doing, body)
    }

    // MARK: Access

    func access(of app: String, includingSelection: Bool) async throws -> AuthorizationStore.Access {
        try await read("read an app's access") { connection in try await access(of: app, includingSelection: includingSelection, on: connection) }
    }

    func access(of app: String, includingSelection: Bool = true, on connection: PostgresConnection) async throws -> AuthorizationStore.Access {
        let rows = try await all("SELECT level, status, expires_at, after_expiry FROM auth_status WHERE app = \(app)",
                                 as: (String, String, Date?, String?).self, on: connection)
            .map { AuthorizationStore.StoredStatus(level: $0.0, status: $0.1, expiresAt: $0.2, afterExpiry: $0.3) }
        guard includingSelection else { return AuthorizationStore.Access(rows: rows, selection: [], albums: []) }
        let selection = try await all("SELECT asset FROM auth_selection WHERE app = \(app) ORDER BY position", as: String.self, on: connection)
        return AuthorizationStore.Access(rows: rows, selection: selection, albums: try await followedAlbums(of: app, on: connection))
    }

    func selectionCount(of app: String) async throws -> Int {
        try await read("count an app's selection") { connection in try await selectionCount(of: app, on: connection) }
    }

    func selectionCount(of app: String, on connection: PostgresConnection) async throws -> Int {
        try await first("SELECT COUNT(*) FROM auth_selection WHERE app = \(app)", as: Int.self, on: connection) ?? 0
    }

    func followedAlbums(of app: String) async throws -> [String] {
        try await read("read the albums an app's selection follows") { connection in try await followedAlbums(of: app, on: connection) }
    }

    func followedAlbums(of app: String, on connection: PostgresConnection) async throws -> [String] {
        try await all("SELECT album FROM auth_selection_album WHERE app = \(app) ORDER BY position", as: String.self, on: connection)
    }

    func apply(_ applications: [AuthorizationStore.Application], now: Date) async throws -> [AuthorizationChange] {
        try await storage.transaction("commit a change of access") { connection in
            try await lockChangeLog(connection)
            var changes: [AuthorizationChange] = []
            for application in applications { changes += try await apply(application, now: now, on: connection) }
            return changes
        }
    }

    /// Applies one update in the caller's transaction (which holds `lockChangeLog`), with its audit line.
    func apply(_ application: AuthorizationStore.Application, now: Date, on connection: PostgresConnection) async throws -> [AuthorizationChange] {
        let app = application.app
        guard let plan = AuthorizationStore.plan(application.update, before: try await access(of: app, on: connection)) else {
            return try await audit(application, changes: [], on: connection)
        }
        if let selection = plan.selection {
            try await connection.query("DELETE FROM auth_selection WHERE app = \(app)", logger: logger)
            // One statement for the whole list, however long: positions are the list's order.
            try await connection.query("""
                INSERT INTO auth_selection (app, asset, position)
                SELECT \(app), asset, position - 1 FROM unnest(\(selection)::TEXT[]) WITH ORDINALITY AS chosen (asset, position)
                """, logger: logger)
        }
        if let albums = plan.albums {
            try await connection.query("DELETE FROM auth_selection_album WHERE app = \(app)", logger: logger)
            try await connection.query("""
                INSERT INTO auth_selection_album (app, album, position)
                SELECT \(app), album, position - 1 FROM unnest(\(albums)::TEXT[]) WITH ORDINALITY AS followed (album, position)
                """, logger: logger)
        }
        var changes: [AuthorizationChange] = []
        for change in plan.changes {
            let (level, status) = (change.level.rawValue, change.status.rawValue)
            try await connection.query("""
                INSERT INTO auth_status (app, level, status, updated_at) VALUES (\(app), \(level), \(status), \(now))
                ON CONFLICT (app, level) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at
                """, logger: logger)
            let addedAlbums = change.albums.added.isEmpty ? nil : change.albums.added
            let removedAlbums = change.albums.removed.isEmpty ? nil : change.albums.removed
            let token = try await first("""
                INSERT INTO auth_change (app, level, status, added, removed, at, added_albums, removed_albums)
                VALUES (\(app), \(level), \(status), \(change.added)::TEXT[], \(change.removed)::TEXT[], \(now), \(addedAlbums)::TEXT[],
                        \(removedAlbums)::TEXT[])
                RETURNING token
                """, as: Int64.self, on: connection)
            changes.append(change.change(token: token ?? 0, app: app, at: now))
        }
        for (level, term) in plan.terms {
            try await connection.query("""
                UPDATE auth_status SET expires_at = \(term?.until), after_expiry = \(term?.afterwards.rawValue)
                WHERE app = \(app) AND level = \(level.rawValue)
                """, logger: logger)
        }
        if plan.forgetsUnusedReset {
            try await connection.query("DELETE FROM auth_unused_reset WHERE app = \(app)", logger: logger)
        }
        return try await audit(application, changes: changes, on: connection)
    }

    /// Writes the update's audit line, made from the app's access after it, in the caller's transaction.
    private func audit(_ application: AuthorizationStore.Application, changes: [AuthorizationChange],
                       on connection: PostgresConnection) async throws -> [AuthorizationChange] {
        guard let auditLine = application.auditLine else { return changes }
        let app = application.app
        let after = AuthorizationStore.Applied(access: try await access(of: app, includingSelection: false, on: connection),
                                               selectionCount: try await selectionCount(of: app, on: connection), changes: changes)
        try await insertAudit([auditLine(after)], on: connection)
        return changes
    }

    func changes(of app: String, since token: Int64) async throws -> [AuthorizationChange] {
        try await read("read an app's changes") { connection in
            try await all("""
                SELECT token, level, status, added, removed, at, added_albums, removed_albums FROM auth_change
                WHERE app = \(app) AND token > \(token) ORDER BY token
                """, as: (Int64, String, String, [String], [String], Date, [String]?, [String]?).self, on: connection)
                .map { token, level, status, added, removed, at, addedAlbums, removedAlbums in
                    AuthorizationChange(token: token, app: app, level: AccessLevel(rawValue: level) ?? .readWrite,
                                        status: AuthorizationStatus(rawValue: status) ?? .notDetermined, added: added, removed: removed, at: at,
                                        addedAlbums: addedAlbums, removedAlbums: removedAlbums)
                }
        }
    }

    func latestToken(of app: String) async throws -> Int64 {
        try await read("read an app's latest change") { connection in
            try await value("SELECT MAX(token) FROM auth_change WHERE app = \(app)", as: Int64.self, on: connection) ?? 0
        }
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// lightbox-auth's state in SQLite (`auth/auth.sqlite` in the data folder, WAL): the default
/// storage. Every change commits in one transaction with its change record (synchronous=FULL):
/// when a caller is answered, it is on disk. One writer at a time, so change tokens (rowids)
/// are committed in order.
struct SQLiteAuthStorage: AuthStorage {
    let database: DatabasePool

    init(database: DatabasePool) {
        self.database = database
    }

    /// Opens (or creates) the database at `url` and brings its tables up to date.
    init(at url: URL) throws {
        database = try AuthDatabase.open(at: url)
    }

    func whileOpen(_ body: () async throws -> Void) async throws {
        try await body()
    }

    func access(of app: String, includingSelection: Bool) async throws -> AuthorizationStore.Access {
        try await database.read(AccessQuery(app: app, includingSelection: includingSelection))
    }

    /// An app's access. Statuses alone are two rows by key: a point read.
    struct AccessQuery: DatabaseQuery {
        var app: String
        var includingSelection: Bool

        var isPointRead: Bool { !includingSelection }

        func fetch(_ db: Database) throws -> AuthorizationStore.Access {
            try SQLiteAuthStorage.access(of: app, includingSelection: includingSelection, db)
        }
    }

    func selectionCount(of app: String) async throws -> Int {
        try await database.detachedRead { db in try Self.selectionCount(of: app, db) }
    }

    static func selectionCount(of app: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM selection WHERE app = ?", arguments: [app]) ?? 0
    }

    static func access(of app: String, includingSelection: Bool = true, _ db: Database) throws -> AuthorizationStore.Access {
        let rows = try StatusRow.fetchAll(positionally: db.cachedStatement(sql: statusesOfApp), arguments: [app]).map(\.stored)
        let selection = !includingSelection ? [] :
            try String.fetchAll(db, sql: "SELECT asset FROM selection WHERE app = ? ORDER BY position", arguments: [app])
        let albums = try includingSelection ? followedAlbums(of: app, db) : []
        return AuthorizationStore.Access(rows: rows, selection: selection, albums: albums)
    }

    func apply(_ applications: [AuthorizationStore.Application], now: Date) async throws -> [AuthorizationChange] {
        try await database.write { db in
            try applications.flatMap { application in try Self.apply(application, now: now, db) }
        }
    }

    /// Applies one update in the caller's transaction; its audit line is written with it: a change
    /// is never on disk without it.
    static func apply(_ application: AuthorizationStore.Application, now: Date, _ db: Database) throws -> [AuthorizationChange] {
        let app = application.app
        let changes = try apply(application.update, to: app, now: now, db)
        if let auditLine = application.auditLine {
            let after = AuthorizationStore.Applied(access: try access(of: app, includingSelection: false, db),
                                                   selectionCount: try selectionCount(of: app, db), changes: changes)
            try insertAudit([auditLine(after)], db)
        }
        return changes
    }

    private static func apply(_ update: AuthorizationStore.Update, to app: String, now: Date, _ db: Database) throws -> [AuthorizationChange] {
        guard let plan = AuthorizationStore.plan(update, before: try Self.access(of: app, db)) else { return [] }
        if let selection = plan.selection {
            try db.execute(sql: "DELETE FROM selection WHERE app = ?", arguments: [app])
            let insert = try db.cachedStatement(sql: "INSERT INTO selection (app, asset, position) VALUES (?, ?, ?)")
            for (position, asset) in selection.enumerated() {
                try insert.execute(arguments: [app, asset, position])
            }
        }
        if let albums = plan.albums { try replaceFollowedAlbums(of: app, with: albums, db) }
        var changes: [AuthorizationChange] = []
        for change in plan.changes {
            try Self.setStatus(change.status, level: change.level, app: app, now: now, db)
            changes.append(try Self.record(change, app: app, now: now, db))
        }
        for (level, term) in plan.terms { try Self.setTerm(term, level: level, app: app, db) }
        if plan.forgetsUnusedReset { try Self.forgetUnusedReset(of: app, db) }
        return changes
    }

    func changes(of app: String, since token: Int64) async throws -> [AuthorizationChange] {
        try await database.detachedRead { db in
            try AuthorizationChange.fetchAll(positionally: db.cachedStatement(sql: Self.changesOfApp), arguments: [app, token])
        }
    }

    func latestToken(of app: String) async throws -> Int64 {
        try await database.detachedRead { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(token) FROM change WHERE app = ?", arguments: [app]) ?? 0
        }
    }

    private static func setStatus(_ status: AuthorizationStatus, level: AccessLevel, app: String, now: Date, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO authorization (app, level, status, updatedAt) VALUES (?, ?, ?, ?)
            ON CONFLICT (app, level) DO UPDATE SET status = excluded.status, updatedAt = excluded.updatedAt
            """, arguments: [app, level.rawValue, status.rawValue, now])
    }

    private static func record(_ change: AuthorizationStore.PlannedChange, app: String, now: Date, _ db: Database) throws -> AuthorizationChange {
        // Album lists are NULL when empty, as the wire leaves them out.
        let albums = change.albums
        let addedAlbums = albums.added.isEmpty ? nil : albums.added, removedAlbums = albums.removed.isEmpty ? nil : albums.removed
        try db.execute(sql: "INSERT INTO change (app, level, status, added, removed, at, addedAlbums, removedAlbums) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       arguments: [app, change.level.rawValue, change.status.rawValue, json(change.added), json(change.removed), now,
                                   addedAlbums.map { json($0) }, removedAlbums.map { json($0) }])
        return change.change(token: db.lastInsertedRowID, app: app, at: now)
    }

    private static let statusesOfApp = "SELECT \(StatusRow.selectList) FROM authorization WHERE app = ?"
    private static let changesOfApp = "SELECT \(AuthorizationChange.selectList) FROM change WHERE app = ? AND token > ? ORDER BY token"

    private static func json(_ strings: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(strings)) ?? Data("[]".utf8), as: UTF8.self)
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// Statuses, limited selections and the change log, persisted. Every change commits in one
/// transaction with its change record (synchronous=FULL): when a caller is answered, it is on disk.
public struct AuthorizationStore: Sendable {
    let database: DatabasePool

    struct Access: Sendable, Hashable {
        var readWrite: AuthorizationStatus
        var addOnly: AuthorizationStatus
        var selection: [String]
        /// When each level's grant ends, if it does.
        var readWriteTerm: GrantTerm?
        var addOnlyTerm: GrantTerm?
        /// The albums a limited selection follows (read with the selection).
        var albums: [String] = []

        func status(_ level: AccessLevel) -> AuthorizationStatus {
            level == .readWrite ? readWrite : addOnly
        }
    }

    /// What a change asks for; nil fields stay as they are.
    struct Update: Sendable {
        var readWrite: AuthorizationStatus?
        var addOnly: AuthorizationStatus?
        /// The whole new selection.
        var selection: [String]?
        /// Assets to add to the selection.
        var addedAssets: [String] = []
        /// Every album the selection follows (replaces the current ones).
        var albums: [String]?
        /// Change nothing unless this level is still notDetermined (a prompt's answer: the owner's
        /// settings may have answered it meanwhile).
        var onlyWhileNotDetermined: AccessLevel?
        /// The term of the grants this update sets. Each level the update names gets it if its new
        /// status is a grant, and loses any term otherwise; a level it does not name keeps its own.
        var term: GrantTerm?
    }

    /// The app's state after an update, and the changes it made: what the update's audit line says.
    struct Applied: Sendable {
        /// Statuses only; the selection is `selectionCount` long.
        var access: Access
        var selectionCount: Int
        var changes: [AuthorizationChange]
    }

    /// The audit line of an owner's change, made from its result inside the change's transaction.
    typealias AuditLine = @Sendable (Applied) -> AuditEntry

    /// The app's statuses, and its selection unless `includingSelection` is false (a status check
    /// need not read 100,000 identifiers).
    func access(of app: String, includingSelection: Bool = true) async throws -> Access {
        try await database.read(AccessQuery(app: app, includingSelection: includingSelection))
    }

    /// An app's access. Statuses alone are two rows by key: a point read.
    struct AccessQuery: DatabaseQuery {
        var app: String
        var includingSelection: Bool

        var isPointRead: Bool { !includingSelection }

        func fetch(_ db: Database) throws -> Access {
            try AuthorizationStore.access(of: app, includingSelection: includingSelection, db)
        }
    }

    func selectionCount(of app: String) async throws -> Int {
        try await database.detachedRead { db in try Self.selectionCount(of: app, db) }
    }

    static func selectionCount(of app: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM selection WHERE app = ?", arguments: [app]) ?? 0
    }

    static func access(of app: String, includingSelection: Bool = true, _ db: Database) throws -> Access {
        var rows: [String: StatusRow] = [:]
        for row in try StatusRow.fetchAll(positionally: db.cachedStatement(sql: statusesOfApp), arguments: [app]) { rows[row.level] = row }
        let selection = !includingSelection ? [] :
            try String.fetchAll(db, sql: "SELECT asset FROM selection WHERE app = ? ORDER BY position", arguments: [app])
        let readWrite = rows[AccessLevel.readWrite.rawValue], addOnly = rows[AccessLevel.addOnly.rawValue]
        let albums = try includingSelection ? followedAlbums(of: app, db) : []
        return Access(readWrite: readWrite.flatMap { AuthorizationStatus(rawValue: $0.status) } ?? .notDetermined,
                      addOnly: addOnly.flatMap { AuthorizationStatus(rawValue: $0.status) } ?? .notDetermined, selection: selection,
                      readWriteTerm: readWrite?.term, addOnlyTerm: addOnly?.term,
                      albums: albums)
    }

    /// Applies an update and returns the changes it made (none when nothing differs). `auditLine`
    /// is written to the audit trail in the same transaction: a change is never on disk without it.
    func apply(_ update: Update, to app: String, now: Date = Date(), auditLine: AuditLine? = nil) async throws -> [AuthorizationChange] {
        try await database.write { db in try Self.apply(update, to: app, now: now, auditLine: auditLine, db) }
    }

    /// Applies one update per app in one transaction, each with its audit line (the grants that
    /// ended, the apps reset because unused), and returns every change made.
    func apply(_ updates: [(app: String, update: Update, auditLine: AuditLine)], now: Date = Date()) async throws -> [AuthorizationChange] {
        try await database.write { db in
            try updates.flatMap { app, update, auditLine in try Self.apply(update, to: app, now: now, auditLine: auditLine, db) }
        }
    }

    static func apply(_ update: Update, to app: String, now: Date, auditLine: AuditLine?, _ db: Database) throws -> [AuthorizationChange] {
        let changes = try apply(update, to: app, now: now, db)
        if let auditLine {
            let after = Applied(access: try access(of: app, includingSelection: false, db),
                                selectionCount: try selectionCount(of: app, db), changes: changes)
            try AuditLog.insert([auditLine(after)], db)
        }
        return changes
    }

    private static func apply(_ update: Update, to app: String, now: Date, _ db: Database) throws -> [AuthorizationChange] {
        let before = try Self.access(of: app, db)
        if let level = update.onlyWhileNotDetermined, before.status(level) != .notDetermined { return [] }
        var changes: [AuthorizationChange] = []
        let newReadWrite = update.readWrite ?? before.readWrite
        var selection = update.selection.map(Self.unique) ?? before.selection
        // Sets, not list scans: a selection may hold 100,000 assets.
        var members = Set(selection)
        for asset in update.addedAssets where members.insert(asset).inserted { selection.append(asset) }
        // A selection means something only while limited: leaving limited empties it, so a
        // watcher is told those assets are gone and a later limited grant starts afresh.
        if newReadWrite != .limited {
            selection = []
            members = []
        }
        let previous = Set(before.selection)
        let added = selection.filter { !previous.contains($0) }
        let removed = before.selection.filter { !members.contains($0) }
        if !added.isEmpty || !removed.isEmpty {
            try db.execute(sql: "DELETE FROM selection WHERE app = ?", arguments: [app])
            let insert = try db.cachedStatement(sql: "INSERT INTO selection (app, asset, position) VALUES (?, ?, ?)")
            for (position, asset) in selection.enumerated() {
                try insert.execute(arguments: [app, asset, position])
            }
        }
        // Albums likewise: followed only while limited.
        let albums = try replaceFollowedAlbums(of: app, before: before.albums,
                                               with: newReadWrite == .limited ? update.albums.map(Self.unique) ?? before.albums : [], db)
        let newAddOnly = update.addOnly ?? before.addOnly
        if newReadWrite != before.readWrite || !added.isEmpty || !removed.isEmpty || !albums.added.isEmpty || !albums.removed.isEmpty {
            try Self.setStatus(newReadWrite, level: .readWrite, app: app, now: now, db)
            changes.append(try Self.record(app: app, level: .readWrite, status: newReadWrite, added: added, removed: removed,
                                           albums: albums, now: now, db))
        }
        if newAddOnly != before.addOnly {
            try Self.setStatus(newAddOnly, level: .addOnly, app: app, now: now, db)
            changes.append(try Self.record(app: app, level: .addOnly, status: newAddOnly, added: [], removed: [], now: now, db))
        }
        if update.readWrite != nil {
            try Self.setTerm(newReadWrite.isGrant ? update.term?.settled(after: before.readWrite) : nil, level: .readWrite, app: app, db)
        }
        if update.addOnly != nil {
            try Self.setTerm(newAddOnly.isGrant ? update.term?.settled(after: before.addOnly) : nil, level: .addOnly, app: app, db)
        }
        if (update.readWrite != nil && newReadWrite.isGrant) || (update.addOnly != nil && newAddOnly.isGrant) {
            try Self.forgetUnusedReset(of: app, db)
        }
        return changes
    }

    /// Back to notDetermined at both levels, selection cleared.
    func reset(_ app: String, now: Date = Date(), auditLine: AuditLine? = nil) async throws -> [AuthorizationChange] {
        try await apply(Update(readWrite: .notDetermined, addOnly: .notDetermined, selection: []), to: app, now: now, auditLine: auditLine)
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

    private static func record(app: String, level: AccessLevel, status: AuthorizationStatus, added: [String], removed: [String],
                               albums: AlbumChanges = AlbumChanges(), now: Date, _ db: Database) throws -> AuthorizationChange {
        // Album lists are NULL when empty, as the wire leaves them out.
        let addedAlbums = albums.added.isEmpty ? nil : albums.added, removedAlbums = albums.removed.isEmpty ? nil : albums.removed
        try db.execute(sql: "INSERT INTO change (app, level, status, added, removed, at, addedAlbums, removedAlbums) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       arguments: [app, level.rawValue, status.rawValue, json(added), json(removed), now, addedAlbums.map { json($0) },
                                   removedAlbums.map { json($0) }])
        return AuthorizationChange(token: db.lastInsertedRowID, app: app, level: level, status: status, added: added, removed: removed, at: now,
                                   addedAlbums: addedAlbums, removedAlbums: removedAlbums)
    }

    private static let statusesOfApp = "SELECT \(StatusRow.selectList) FROM authorization WHERE app = ?"
    private static let changesOfApp = "SELECT \(AuthorizationChange.selectList) FROM change WHERE app = ? AND token > ? ORDER BY token"

    private static func json(_ strings: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(strings)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func unique(_ assets: [String]) -> [String] {
        var seen = Set<String>()
        return assets.filter { seen.insert($0).inserted }
    }
}

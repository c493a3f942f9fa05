import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

// Grants that end: the term of each level's grant, and the apps whose access went unused.
extension SQLiteAuthStorage {
    static func setTerm(_ term: GrantTerm?, level: AccessLevel, app: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE authorization SET expiresAt = ?, afterExpiry = ? WHERE app = ? AND level = ?",
                       arguments: [term?.until, term.map { $0.afterwards.rawValue }, app, level.rawValue])
    }

    static func forgetUnusedReset(of app: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM unusedReset WHERE app = ?", arguments: [app])
    }

    func nextTermEnd() async throws -> Date? {
        try await database.detachedRead { db in
            try Date.fetchOne(db, sql: "SELECT MIN(expiresAt) FROM authorization WHERE expiresAt IS NOT NULL")
        }
    }

    func endTerms(at now: Date) async throws -> [AuthorizationChange] {
        try await database.write { db in
            let ended = try Row.fetchAll(db, sql: "SELECT app, level, afterExpiry FROM authorization WHERE expiresAt <= ?", arguments: [now])
            return try ended.flatMap { row -> [AuthorizationChange] in
                let app: String = row[0]
                guard let level = AccessLevel(rawValue: row[1]) else {
                    // Not a level this version knows: its term is dropped, so it is not found again at once.
                    try db.execute(sql: "UPDATE authorization SET expiresAt = NULL WHERE app = ? AND level = ?", arguments: [app, row[1] as String])
                    return []
                }
                return try Self.apply(AuthorizationStore.termEnd(app: app, level: level, afterExpiry: row[2], now: now), now: now, db)
            }
        }
    }

    func resetUnused(since cutoff: Date, now: Date) async throws -> [AuthorizationChange] {
        try await database.write { db in
            let granted = try Row.fetchAll(db, sql: """
                SELECT app, MAX(updatedAt) FROM authorization WHERE status IN (?, ?) GROUP BY app
                """, arguments: [AuthorizationStatus.authorized.rawValue, AuthorizationStatus.limited.rawValue])
            let notByApps = AuditOperation.notMadeByApps.map(\.rawValue)
            let lastUse = try db.cachedStatement(sql: """
                SELECT MAX(COALESCE(lastAt, at)) FROM audit WHERE app = ? AND operation NOT IN (\(notByApps.map { _ in "?" }.joined(separator: ", ")))
                """)
            return try granted.flatMap { row -> [AuthorizationChange] in
                let app: String = row[0]
                let grantedAt: Date = row[1]
                let used = try Date.fetchOne(lastUse, arguments: StatementArguments([app] + notByApps))
                let since = max(grantedAt, used ?? grantedAt)
                guard since < cutoff else { return [] }
                let before = try Self.access(of: app, includingSelection: false, db)
                let changes = try Self.apply(AuthorizationStore.unusedReset(app: app, before: before, now: now), now: now, db)
                try db.execute(sql: """
                    INSERT INTO unusedReset (app, unusedSince, resetAt) VALUES (?, ?, ?)
                    ON CONFLICT (app) DO UPDATE SET unusedSince = excluded.unusedSince, resetAt = excluded.resetAt
                    """, arguments: [app, since, now])
                return changes
            }
        }
    }

    func unusedResetSince(of app: String) async throws -> Date? {
        try await database.detachedRead { db in
            try Date.fetchOne(db, sql: "SELECT unusedSince FROM unusedReset WHERE app = ?", arguments: [app])
        }
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

// Grants that end: the term of each level's grant, and the apps whose access went unused.
extension AuthorizationStore {
    static func setTerm(_ term: GrantTerm?, level: AccessLevel, app: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE authorization SET expiresAt = ?, afterExpiry = ? WHERE app = ? AND level = ?",
                       arguments: [term?.until, term.map { $0.afterwards.rawValue }, app, level.rawValue])
    }

    static func forgetUnusedReset(of app: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM unusedReset WHERE app = ?", arguments: [app])
    }

    /// When the next term ends, if any grant has one.
    func nextTermEnd() async throws -> Date? {
        try await database.detachedRead { db in
            try Date.fetchOne(db, sql: "SELECT MIN(expiresAt) FROM authorization WHERE expiresAt IS NOT NULL")
        }
    }

    /// Ends every grant whose term is over at `now`: each level returns to what its term said, with
    /// an audit line, in one transaction (a grant given again meanwhile has a new term, and stays).
    func endTerms(at now: Date = Date()) async throws -> [AuthorizationChange] {
        try await database.write { db in
            let ended = try Row.fetchAll(db, sql: "SELECT app, level, afterExpiry FROM authorization WHERE expiresAt <= ?", arguments: [now])
            return try ended.flatMap { row -> [AuthorizationChange] in
                let app: String = row[0]
                guard let level = AccessLevel(rawValue: row[1]) else {
                    // Not a level this version knows: its term is dropped, so it is not found again at once.
                    try db.execute(sql: "UPDATE authorization SET expiresAt = NULL WHERE app = ? AND level = ?", arguments: [app, row[1] as String])
                    return []
                }
                let status = ((row[2] as String?).flatMap(GrantTerm.Afterwards.init(rawValue:)) ?? .askAgain).status
                var update = Update()
                if level == .readWrite { update.readWrite = status } else { update.addOnly = status }
                return try Self.apply(update, to: app, now: now, auditLine: { applied in
                    AuditEntry(app: app, operation: .grantEnded(level), assetCount: 0, outcome: .status(applied.access.status(level)), at: now)
                }, db)
            }
        }
    }

    /// Resets the access of every app holding a grant it neither was given nor used since `cutoff`
    /// (use: any line of the audit trail its own requests wrote): both levels' grants return to
    /// notDetermined, with an audit line and a note for the privacy page, in one transaction.
    func resetUnused(since cutoff: Date, now: Date = Date()) async throws -> [AuthorizationChange] {
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
                var update = Update()
                if before.readWrite.isGrant { update.readWrite = .notDetermined }
                if before.addOnly.isGrant { update.addOnly = .notDetermined }
                let changes = try Self.apply(update, to: app, now: now, auditLine: { applied in
                    AuditEntry(app: app, operation: .resetUnused, assetCount: 0,
                               outcome: .settings(readWrite: applied.access.readWrite, addOnly: applied.access.addOnly), at: now)
                }, db)
                try db.execute(sql: """
                    INSERT INTO unusedReset (app, unusedSince, resetAt) VALUES (?, ?, ?)
                    ON CONFLICT (app) DO UPDATE SET unusedSince = excluded.unusedSince, resetAt = excluded.resetAt
                    """, arguments: [app, since, now])
                return changes
            }
        }
    }

    /// The last use before lightbox-auth reset the app's access as unused, until its next grant.
    func unusedResetSince(of app: String) async throws -> Date? {
        try await database.detachedRead { db in
            try Date.fetchOne(db, sql: "SELECT unusedSince FROM unusedReset WHERE app = ?", arguments: [app])
        }
    }
}

extension GrantTerm {
    /// The term with what follows it decided: as asked, or else back to what the owner had chosen
    /// before the grant (denied stays denied; anything else asks again).
    func settled(after previous: AuthorizationStatus) -> GrantTerm {
        GrantTerm(until: until, then: then ?? (previous == .denied ? .deny : .askAgain))
    }
}

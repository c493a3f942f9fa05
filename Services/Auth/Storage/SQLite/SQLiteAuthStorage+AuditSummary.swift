import Foundation
import GRDB
import LightboxProtocol

/// The privacy report's numbers for one app (`owner.audit.summary`), counted in SQLite over the range
/// of that app's lines since a time (the `audit_app_at` index), never by reading the trail into
/// memory. Lines are told apart by their typed kinds (`AuditOperation`, `AuditOutcome`), and a
/// line that stands for repeats counts `times` times.
extension SQLiteAuthStorage {
    func auditSummary(app: String, since: Date, recentLimit: Int) async throws -> AuditSummary {
        let opened = AuditOperation.pick(.opened).rawValue, answered = AuditOperation.pick(.answered).rawValue
        let reads = AuditOperation.assetReads.map(\.rawValue), owners = AuditOperation.ownerActions.map(\.rawValue)
        let readList = Self.placeholders(reads.count), ownerList = Self.placeholders(owners.count)
        // Not a refusal: neither `refused` nor `refused:<reason>` (";" is the character after ":").
        let notRefused = "outcome <> ? AND NOT (outcome >= ? AND outcome < ?)"
        let refusal: StatementArguments = [AuditOutcome.refused.rawValue, AuditOutcome.refusalPrefix,
                                           String(AuditOutcome.refusalPrefix.dropLast()) + ";"]
        let readKinds = StatementArguments(reads), ownerKinds = StatementArguments(owners)
        var countArguments: StatementArguments = [opened, answered, AuditOutcome.delivered.rawValue]
        countArguments += readKinds
        countArguments += refusal
        countArguments += [app, since]
        var recentArguments: StatementArguments = [app, since]
        recentArguments += readKinds
        recentArguments += refusal
        recentArguments += [recentLimit]
        var lastArguments: StatementArguments = [app]
        lastArguments += ownerKinds
        let (counting, listing, latest) = (countArguments, recentArguments, lastArguments)
        return try await database.detachedRead { db in
            let counts = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT COALESCE(SUM(CASE WHEN operation = ? THEN times ELSE 0 END), 0),
                       COALESCE(SUM(CASE WHEN operation = ? AND outcome = ? THEN assetCount * times ELSE 0 END), 0),
                       COALESCE(SUM(CASE WHEN operation IN (\(readList)) AND \(notRefused) THEN times ELSE 0 END), 0)
                FROM audit WHERE app = ? AND at >= ?
                """), arguments: counting)
            let recent = try String.fetchAll(db.cachedStatement(sql: """
                SELECT asset FROM audit
                WHERE app = ? AND at >= ? AND asset IS NOT NULL AND operation IN (\(readList)) AND \(notRefused)
                GROUP BY asset ORDER BY MAX(id) DESC LIMIT ?
                """), arguments: listing)
            let last = try Date.fetchOne(db.cachedStatement(sql: """
                SELECT COALESCE(lastAt, at) FROM audit WHERE app = ? AND operation NOT IN (\(ownerList)) ORDER BY id DESC LIMIT 1
                """), arguments: latest)
            let picks: Int = counts?[0] ?? 0, received: Int = counts?[1] ?? 0, read: Int = counts?[2] ?? 0
            return AuditSummary(app: app, since: since, picksOpened: picks, itemsReceived: received, reads: read,
                                recentAssets: recent, lastAccess: last)
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

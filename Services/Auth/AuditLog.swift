import Foundation
import GRDB
import LightboxProtocol

/// The owner's one audit trail: every decision and settings change the auth service makes, and
/// every read the picker reports (`auth.audit.record`).
public struct AuditLog: Sendable {
    let database: DatabasePool

    func record(app: String, operation: String, assetCount: Int = 0, outcome: String, at: Date = Date()) async {
        await record([AuditEntry(app: app, operation: operation, assetCount: assetCount, outcome: outcome, at: at)])
    }

    /// Appends entries in one transaction without an fsync of their own: an audit line must not cost
    /// the request path a disk flush. The next durable commit (a grant, a settings change) or the
    /// WAL checkpoint puts them on disk; a crash of the process alone loses none.
    func record(_ entries: [AuditEntry]) async {
        guard !entries.isEmpty else { return }
        do {
            try await database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
                try db.inTransaction {
                    for entry in entries {
                        try db.execute(sql: """
                            INSERT INTO audit (app, operation, assetCount, outcome, at, bytes, asset) VALUES (?, ?, ?, ?, ?, ?, ?)
                            """, arguments: [entry.app, entry.operation, entry.assetCount, entry.outcome, entry.at, entry.bytes, entry.asset])
                    }
                    return .commit
                }
            }
        } catch {
            // The decision stands; a lost audit line must not turn an answer into a failure.
        }
    }

    /// One page, newest first. `operation` matches the name or everything under its prefix
    /// (`pick` finds `pick:opened` and `pick:answered`).
    func entries(_ request: AuditRequest, maximumLimit: Int = 10_000) async throws -> AuditResponse {
        let limit = min(max(request.limit ?? 200, 1), maximumLimit)
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let app = request.app {
            conditions.append("app = ?")
            arguments += [app]
        }
        if let operation = request.operation {
            // A range instead of LIKE keeps the index usable; ";" is the character after ":".
            conditions.append("(operation = ? OR (operation >= ? AND operation < ?))")
            arguments += [operation, operation + ":", operation + ";"]
        }
        if let since = request.since {
            conditions.append("at >= ?")
            arguments += [since]
        }
        if let until = request.until {
            conditions.append("at < ?")
            arguments += [until]
        }
        if let before = request.before {
            conditions.append("id < ?")
            arguments += [before]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [limit + 1]
        let rows = try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM audit \(filter) ORDER BY id DESC LIMIT ?", arguments: arguments)
        }
        let entries = rows.prefix(limit).map {
            AuditEntry(id: $0["id"], app: $0["app"], operation: $0["operation"], assetCount: $0["assetCount"], outcome: $0["outcome"],
                       at: $0["at"], bytes: $0["bytes"], asset: $0["asset"])
        }
        return AuditResponse(entries: entries, next: rows.count > limit ? entries.last?.id : nil)
    }
}

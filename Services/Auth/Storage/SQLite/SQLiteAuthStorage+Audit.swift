import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The audit trail in SQLite.
extension SQLiteAuthStorage {
    /// Gathered lines without an fsync of their own (synchronous=NORMAL for this transaction only):
    /// the next durable commit of a grant or setting, or the WAL checkpoint, puts them on disk; a
    /// crash of the process alone loses none that were written.
    func appendAudit(_ entries: [AuditEntry]) async throws {
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            try db.inTransaction {
                try Self.insertAudit(entries, db)
                return .commit
            }
        }
    }

    /// Writes `entries` in the caller's transaction. The owner's own changes (settings, prompt
    /// answers, expansions) are written this way, in the transaction that commits the change, so an
    /// acknowledged change always has its line, even after a crash.
    static func insertAudit(_ entries: [AuditEntry], _ db: Database) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO audit (app, operation, assetCount, outcome, at, bytes, asset, times, lastAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for entry in entries {
            // The date as GRDB would store it, formatted without a DateFormatter (`StorageDate`).
            try insert.execute(arguments: [entry.app, entry.operation, entry.assetCount, entry.outcome, StorageDate.text(entry.at),
                                           entry.bytes, entry.asset, entry.times ?? 1, entry.lastAt.map(StorageDate.text)])
        }
    }

    func auditEntries(_ request: AuditRequest, limit: Int) async throws -> [AuditEntry] {
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
        arguments += [limit]
        let query = arguments
        return try await database.detachedRead { db in
            // A statement per combination of filters, compiled once.
            try AuditEntry.fetchAll(positionally: db.cachedStatement(sql: "\(Self.selectEntries) \(filter) ORDER BY id DESC LIMIT ?"),
                                    arguments: query)
        }
    }

    private static let selectEntries = "SELECT \(AuditEntry.selectList) FROM audit"
}

import Foundation
import GRDB
import LightboxProtocol

/// Every decision the auth service makes: app, operation, asset count, outcome, time.
public struct AuditLog: Sendable {
    let database: DatabasePool

    func record(app: String, operation: String, assetCount: Int = 0, outcome: String, at: Date = Date()) async {
        do {
            try await database.write { db in
                try db.execute(sql: "INSERT INTO audit (app, operation, assetCount, outcome, at) VALUES (?, ?, ?, ?, ?)",
                               arguments: [app, operation, assetCount, outcome, at])
            }
        } catch {
            // The decision stands; a lost audit line must not turn an answer into a failure.
        }
    }

    func entries(app: String?, limit: Int) async throws -> [AuditEntry] {
        try await database.read { db in
            let rows = if let app {
                try Row.fetchAll(db, sql: "SELECT * FROM audit WHERE app = ? ORDER BY id DESC LIMIT ?", arguments: [app, limit])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM audit ORDER BY id DESC LIMIT ?", arguments: [limit])
            }
            return rows.reversed().map {
                AuditEntry(app: $0["app"], operation: $0["operation"], assetCount: $0["assetCount"], outcome: $0["outcome"], at: $0["at"])
            }
        }
    }
}

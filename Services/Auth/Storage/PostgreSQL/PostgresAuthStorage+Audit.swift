import Foundation
import LightboxProtocol
import PostgresNIO

/// The audit trail in PostgreSQL.
extension PostgresAuthStorage {
    /// Gathered lines without waiting for the disk (`synchronous_commit = off` for this transaction
    /// only): the server writes them out within moments, and a crash of lightbox-auth alone loses
    /// none that were written. The owner's own changes are written with the change, durably.
    func appendAudit(_ entries: [AuditEntry]) async throws {
        try await storage.transaction("write audit lines") { connection in
            try await connection.query("SET LOCAL synchronous_commit = off", logger: logger)
            try await insertAudit(entries, on: connection)
        }
    }

    /// Writes `entries` in the caller's transaction, in their order, in one statement (columns as
    /// arrays; empty text, -1 and a flag stand for the nulls arrays cannot carry).
    func insertAudit(_ entries: [AuditEntry], on connection: PostgresConnection) async throws {
        guard !entries.isEmpty else { return }
        let apps = entries.map(\.app), operations = entries.map(\.operation), counts = entries.map { Int64($0.assetCount) }
        let outcomes = entries.map(\.outcome), times = entries.map(\.at), bytes = entries.map { $0.bytes ?? -1 }
        let assets = entries.map { $0.asset ?? "" }, repeats = entries.map { Int64($0.times ?? 1) }
        let lastTimes = entries.map { $0.lastAt ?? $0.at }, hasLast = entries.map { $0.lastAt != nil }
        try await connection.query("""
            INSERT INTO auth_audit (app, operation, asset_count, outcome, at, bytes, asset, times, last_at)
            SELECT app, operation, asset_count, outcome, at, NULLIF(bytes, -1), NULLIF(asset, ''), times, CASE WHEN has_last THEN last_at END
            FROM unnest(\(apps)::TEXT[], \(operations)::TEXT[], \(counts)::BIGINT[], \(outcomes)::TEXT[], \(times)::TIMESTAMPTZ[],
                        \(bytes)::BIGINT[], \(assets)::TEXT[], \(repeats)::BIGINT[], \(lastTimes)::TIMESTAMPTZ[], \(hasLast)::BOOLEAN[])
                WITH ORDINALITY AS line (app, operation, asset_count, outcome, at, bytes, asset, times, last_at, has_last, number)
            ORDER BY number
            """, logger: logger)
    }

    func auditEntries(_ request: AuditRequest, limit: Int) async throws -> [AuditEntry] {
        // A filter not given is a null parameter; PostgreSQL plans each query with its values, so
        // `NULL IS NULL OR …` folds away and the indexes serve what is left. A family of operations
        // is a range (";" is the character after ":"), which keeps the index usable.
        let operation = request.operation
        return try await read("read the audit trail") { connection in
            try await all("""
                SELECT id, app, operation, asset_count, outcome, at, bytes, asset, times, last_at FROM auth_audit
                WHERE (\(request.app)::TEXT IS NULL OR app = \(request.app))
                  AND (\(operation)::TEXT IS NULL OR operation = \(operation)
                       OR (operation >= \(operation.map { $0 + ":" }) AND operation < \(operation.map { $0 + ";" })))
                  AND (\(request.since)::TIMESTAMPTZ IS NULL OR at >= \(request.since))
                  AND (\(request.until)::TIMESTAMPTZ IS NULL OR at < \(request.until))
                  AND (\(request.before)::BIGINT IS NULL OR id < \(request.before))
                ORDER BY id DESC LIMIT \(limit)
                """, as: (Int64, String, String, Int, String, Date, Int64?, String?, Int, Date?).self, on: connection)
                .map { id, app, operation, count, outcome, at, bytes, asset, times, lastAt in
                    AuditEntry(id: id, app: app, operation: operation, assetCount: count, outcome: outcome, at: at, bytes: bytes, asset: asset,
                               times: AuditLog.times(times), lastAt: lastAt)
                }
        }
    }

    /// The privacy report's numbers, counted in SQL over the range of one app's lines since a time
    /// (the `auth_audit_app_at` index), as `SQLiteAuthStorage.auditSummary` counts them.
    func auditSummary(app: String, since: Date, recentLimit: Int) async throws -> AuditSummary {
        let opened = AuditOperation.pick(.opened).rawValue, answered = AuditOperation.pick(.answered).rawValue
        let delivered = AuditOutcome.delivered.rawValue
        let reads = AuditOperation.assetReads.map(\.rawValue), owners = AuditOperation.ownerActions.map(\.rawValue)
        // Not a refusal: neither `refused` nor `refused:<reason>` (";" is the character after ":").
        let refused = AuditOutcome.refused.rawValue, refusal = AuditOutcome.refusalPrefix
        let afterRefusals = String(AuditOutcome.refusalPrefix.dropLast()) + ";"
        return try await read("count an app's audit lines") { connection in
            let counts = try await first("""
                SELECT COALESCE(SUM(CASE WHEN operation = \(opened) THEN times ELSE 0 END), 0)::BIGINT,
                       COALESCE(SUM(CASE WHEN operation = \(answered) AND outcome = \(delivered) THEN asset_count * times ELSE 0 END), 0)::BIGINT,
                       COALESCE(SUM(CASE WHEN operation = ANY(\(reads)) AND outcome <> \(refused)
                                         AND NOT (outcome >= \(refusal) AND outcome < \(afterRefusals)) THEN times ELSE 0 END), 0)::BIGINT
                FROM auth_audit WHERE app = \(app) AND at >= \(since)
                """, as: (Int, Int, Int).self, on: connection)
            let recent = try await all("""
                SELECT asset FROM auth_audit
                WHERE app = \(app) AND at >= \(since) AND asset IS NOT NULL AND operation = ANY(\(reads)) AND outcome <> \(refused)
                  AND NOT (outcome >= \(refusal) AND outcome < \(afterRefusals))
                GROUP BY asset ORDER BY MAX(id) DESC LIMIT \(recentLimit)
                """, as: String.self, on: connection)
            let last = try await first("""
                SELECT COALESCE(last_at, at) FROM auth_audit WHERE app = \(app) AND operation <> ALL(\(owners)) ORDER BY id DESC LIMIT 1
                """, as: Date.self, on: connection)
            return AuditSummary(app: app, since: since, picksOpened: counts?.0 ?? 0, itemsReceived: counts?.1 ?? 0, reads: counts?.2 ?? 0,
                                recentAssets: recent, lastAccess: last)
        }
    }
}

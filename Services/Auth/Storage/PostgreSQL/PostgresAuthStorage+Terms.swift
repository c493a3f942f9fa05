import Foundation
import LightboxProtocol
import PostgresNIO

// Grants that end, access reset when unused, and the location each app may receive.
extension PostgresAuthStorage {
    func nextTermEnd() async throws -> Date? {
        try await read("find the next grant that ends") { connection in
            try await value("SELECT MIN(expires_at) FROM auth_status WHERE expires_at IS NOT NULL", as: Date.self, on: connection)
        }
    }

    func endTerms(at now: Date) async throws -> [AuthorizationChange] {
        try await storage.transaction("end the grants whose term is over") { connection in
            try await lockChangeLog(connection)
            let ended = try await all("SELECT app, level, after_expiry FROM auth_status WHERE expires_at <= \(now)",
                                      as: (String, String, String?).self, on: connection)
            var changes: [AuthorizationChange] = []
            for (app, level, afterExpiry) in ended {
                guard let known = AccessLevel(rawValue: level) else {
                    // Not a level this version knows: its term is dropped, so it is not found again at once.
                    try await connection.query("UPDATE auth_status SET expires_at = NULL WHERE app = \(app) AND level = \(level)", logger: logger)
                    continue
                }
                changes += try await apply(AuthorizationStore.termEnd(app: app, level: known, afterExpiry: afterExpiry, now: now), now: now,
                                           on: connection)
            }
            return changes
        }
    }

    func resetUnused(since cutoff: Date, now: Date) async throws -> [AuthorizationChange] {
        try await storage.transaction("reset the access of unused apps") { connection in
            try await lockChangeLog(connection)
            let grants = [AuthorizationStatus.authorized.rawValue, AuthorizationStatus.limited.rawValue]
            let granted = try await all("SELECT app, MAX(updated_at) FROM auth_status WHERE status = ANY(\(grants)) GROUP BY app",
                                        as: (String, Date).self, on: connection)
            let notByApps = AuditOperation.notMadeByApps.map(\.rawValue)
            var changes: [AuthorizationChange] = []
            for (app, grantedAt) in granted {
                let used = try await value("""
                    SELECT MAX(COALESCE(last_at, at)) FROM auth_audit WHERE app = \(app) AND operation <> ALL(\(notByApps))
                    """, as: Date.self, on: connection)
                let since = max(grantedAt, used ?? grantedAt)
                guard since < cutoff else { continue }
                let before = try await access(of: app, includingSelection: false, on: connection)
                changes += try await apply(AuthorizationStore.unusedReset(app: app, before: before, now: now), now: now, on: connection)
                try await connection.query("""
                    INSERT INTO auth_unused_reset (app, unused_since, reset_at) VALUES (\(app), \(since), \(now))
                    ON CONFLICT (app) DO UPDATE SET unused_since = excluded.unused_since, reset_at = excluded.reset_at
                    """, logger: logger)
            }
            return changes
        }
    }

    func unusedResetSince(of app: String) async throws -> Date? {
        try await read("read when an app's access was reset") { connection in
            try await first("SELECT unused_since FROM auth_unused_reset WHERE app = \(app)", as: Date.self, on: connection)
        }
    }

    func location(of app: String) async throws -> AuthorizationStore.LocationSetting {
        try await read("read an app's location access") { connection in
            guard let (requested, granted) = try await first("SELECT requested, granted FROM auth_location WHERE app = \(app)",
                                                             as: (String?, String).self, on: connection) else {
                return AuthorizationStore.LocationSetting(requested: nil, granted: .none)
            }
            return AuthorizationStore.LocationSetting(requested: requested.flatMap(LocationAccess.init(rawValue:)),
                                                      granted: LocationAccess(rawValue: granted) ?? .none)
        }
    }

    func setLocation(of app: String, granted: LocationAccess, requested: LocationAccess?, now: Date, auditLine: AuditEntry) async throws {
        try await storage.transaction("store an app's location access") { connection in
            try await connection.query("""
                INSERT INTO auth_location (app, requested, granted, updated_at) VALUES (\(app), \(requested?.rawValue), \(granted.rawValue), \(now))
                ON CONFLICT (app) DO UPDATE SET requested = COALESCE(excluded.requested, auth_location.requested), granted = excluded.granted,
                    updated_at = excluded.updated_at
                """, logger: logger)
            try await insertAudit([auditLine], on: connection)
        }
    }
}

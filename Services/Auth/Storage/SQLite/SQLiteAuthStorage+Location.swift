import Foundation
import GRDB
import LightboxProtocol

/// The location each app may receive with its library access, kept beside its statuses.
extension SQLiteAuthStorage {
    func location(of app: String) async throws -> AuthorizationStore.LocationSetting {
        try await database.detachedRead { db in try Self.location(of: app, db) }
    }

    static func location(of app: String, _ db: Database) throws -> AuthorizationStore.LocationSetting {
        guard let row = try Row.fetchOne(db, sql: "SELECT requested, granted FROM locationAccess WHERE app = ?", arguments: [app]) else {
            return AuthorizationStore.LocationSetting(requested: nil, granted: .none)
        }
        let requested: String? = row["requested"]
        let granted: String = row["granted"]
        return AuthorizationStore.LocationSetting(requested: requested.flatMap(LocationAccess.init(rawValue:)),
                                                  granted: LocationAccess(rawValue: granted) ?? .none)
    }

    func setLocation(of app: String, granted: LocationAccess, requested: LocationAccess?, now: Date, auditLine: AuditEntry) async throws {
        try await database.write { db in
            try db.execute(sql: """
                INSERT INTO locationAccess (app, requested, granted, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (app) DO UPDATE SET requested = COALESCE(excluded.requested, requested), granted = excluded.granted,
                    updatedAt = excluded.updatedAt
                """, arguments: [app, requested?.rawValue, granted.rawValue, now])
            try Self.insertAudit([auditLine], db)
        }
    }
}

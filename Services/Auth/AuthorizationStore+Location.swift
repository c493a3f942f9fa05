import Foundation
import GRDB
import LightboxProtocol

/// The location each app may receive with its library access, kept beside its statuses: what it
/// asked for (when it was last prompted) and what the owner gave. Whether it applies is
/// `AccessPolicy.location`'s question; this only keeps it.
extension AuthorizationStore {
    struct LocationSetting: Sendable, Hashable {
        /// What the app asked for when the owner was last asked; nil when it never asked.
        var requested: LocationAccess?
        var granted: LocationAccess
    }

    func location(of app: String) async throws -> LocationSetting {
        try await database.detachedRead { db in try Self.location(of: app, db) }
    }

    static func location(of app: String, _ db: Database) throws -> LocationSetting {
        guard let row = try Row.fetchOne(db, sql: "SELECT requested, granted FROM locationAccess WHERE app = ?", arguments: [app]) else {
            return LocationSetting(requested: nil, granted: .none)
        }
        let requested: String? = row["requested"]
        let granted: String = row["granted"]
        return LocationSetting(requested: requested.flatMap(LocationAccess.init(rawValue:)),
                               granted: LocationAccess(rawValue: granted) ?? .none)
    }

    /// Stores the owner's answer (`granted`) and, when a prompt asked, what it asked (`requested`;
    /// nil keeps the one stored), with `auditLine` in the same transaction: acknowledged means on disk.
    func setLocation(of app: String, granted: LocationAccess, requested: LocationAccess? = nil, now: Date = Date(),
                     auditLine: AuditEntry) async throws {
        try await database.write { db in
            try db.execute(sql: """
                INSERT INTO locationAccess (app, requested, granted, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (app) DO UPDATE SET requested = COALESCE(excluded.requested, requested), granted = excluded.granted,
                    updatedAt = excluded.updatedAt
                """, arguments: [app, requested?.rawValue, granted.rawValue, now])
            try AuditLog.insert([auditLine], db)
        }
    }
}

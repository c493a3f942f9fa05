import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The registered apps and the desktop apps lightbox-portal named.
extension SQLiteAuthStorage {
    func saveApp(_ manifest: AppManifest, registeredAt: Date) async throws -> String? {
        try await database.write { db in
            if let other = try AppRecord.filter(AppRecord.Columns.publicKey == manifest.publicKey).fetchOne(db), other.id != manifest.id {
                return other.id
            }
            try AppRecord(manifest, registeredAt: registeredAt).save(db)
            return nil
        }
    }

    func apps() async throws -> [AppManifest] {
        try await database.detachedRead { db in try AppRecord.order(AppRecord.Columns.id).fetchAll(db).map(\.manifest) }
    }

    func app(withPublicKey key: String) async throws -> AppManifest? {
        try await database.detachedRead { db in try AppRecord.filter(AppRecord.Columns.publicKey == key).fetchOne(db)?.manifest }
    }

    func app(withID id: String) async throws -> AppManifest? {
        try await database.detachedRead { db in try AppRecord.fetchOne(db, key: id)?.manifest }
    }

    func saveDesktopApp(_ record: DesktopAppRecord) async throws {
        try await database.write { db in try record.save(db) }
    }

    func desktopApps() async throws -> [DesktopAppRecord] {
        try await database.detachedRead { db in try DesktopAppRecord.order(Column("app")).fetchAll(db) }
    }
}

extension DesktopAppRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "desktopApp"
}

struct AppRecord: Encodable, FetchableRecord, PersistableRecord, PositionalRecord {
    static let databaseTableName = "app"

    enum Columns: String, CaseIterable, ColumnExpression {
        case id, name, publicKey, usageReadWrite, usageAddOnly, preventAutomaticLimitedAccessAlert, registeredAt
    }

    var id: String
    var name: String
    var publicKey: String
    var usageReadWrite: String?
    var usageAddOnly: String?
    var preventAutomaticLimitedAccessAlert: Bool
    var registeredAt: Date

    init(_ manifest: AppManifest, registeredAt: Date) {
        id = manifest.id
        name = manifest.name
        publicKey = manifest.publicKey
        usageReadWrite = manifest.usageReadWrite
        usageAddOnly = manifest.usageAddOnly
        preventAutomaticLimitedAccessAlert = manifest.preventAutomaticLimitedAccessAlert
        self.registeredAt = registeredAt
    }

    init(row: inout PositionalRow<Columns>) throws {
        id = try row.read(.id)
        name = try row.read(.name)
        publicKey = try row.read(.publicKey)
        usageReadWrite = try row.read(.usageReadWrite)
        usageAddOnly = try row.read(.usageAddOnly)
        preventAutomaticLimitedAccessAlert = try row.read(.preventAutomaticLimitedAccessAlert)
        registeredAt = try row.read(.registeredAt)
    }

    var manifest: AppManifest {
        AppManifest(id: id, name: name, publicKey: publicKey, usageReadWrite: usageReadWrite, usageAddOnly: usageAddOnly,
                    preventAutomaticLimitedAccessAlert: preventAutomaticLimitedAccessAlert)
    }
}

import Foundation
import GRDB
import LightboxProtocol

/// The desktop apps lightbox-portal picked for, with the names their desktop files give. They are
/// not registered (they have no key); the owner's pages list them beside the registered apps so
/// their picks and items can be found and revoked under a name the owner knows.
extension AppRegistry {
    /// Records (or renames) a desktop app the portal named.
    func announce(_ app: DesktopAppID, name: String) async throws {
        let record = DesktopAppRecord(app: app.filedAs, name: DesktopAppID.displayName(name) ?? app.filedAs, announcedAt: Date())
        try await database.write { db in try record.save(db) }
    }

    /// Every desktop app the portal named, by the name it files them under.
    func desktopApps() async throws -> [DesktopAppRecord] {
        try await database.detachedRead { db in try DesktopAppRecord.order(Column("app")).fetchAll(db) }
    }
}

struct DesktopAppRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "desktopApp"

    /// As filed: `portal:<app id>`.
    var app: String
    var name: String
    var announcedAt: Date
}

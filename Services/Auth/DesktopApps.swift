import Foundation
import LightboxProtocol

/// The desktop apps lightbox-portal picked for, with the names their desktop files give. They are
/// not registered (they have no key); the owner's pages list them beside the registered apps so
/// their picks and items can be found and revoked under a name the owner knows.
extension AppRegistry {
    /// Records (or renames) a desktop app the portal named.
    func announce(_ app: DesktopAppID, name: String) async throws {
        try await storage.saveDesktopApp(DesktopAppRecord(app: app.filedAs, name: DesktopAppID.displayName(name) ?? app.filedAs, announcedAt: Date()))
    }

    /// Every desktop app the portal named, by the name it files them under.
    func desktopApps() async throws -> [DesktopAppRecord] {
        try await storage.desktopApps()
    }
}

struct DesktopAppRecord: Codable, Sendable {
    /// As filed: `portal:<app id>`.
    var app: String
    var name: String
    var announcedAt: Date
}

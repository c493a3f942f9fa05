import Foundation
import LightboxProtocol
import PostgresNIO

/// The registered apps and the desktop apps lightbox-portal named.
extension PostgresAuthStorage {
    private static let appColumns = "id, name, public_key, usage_read_write, usage_add_only, prevent_automatic_limited_access_alert"
    private typealias AppRow = (String, String, String, String?, String?, Bool)

    private static func manifest(_ row: AppRow) -> AppManifest {
        AppManifest(id: row.0, name: row.1, publicKey: row.2, usageReadWrite: row.3, usageAddOnly: row.4,
                    preventAutomaticLimitedAccessAlert: row.5)
    }

    func saveApp(_ manifest: AppManifest, registeredAt: Date) async throws -> String? {
        try await storage.transaction("register an app") { connection in
            if let other = try await first("SELECT id FROM auth_app WHERE public_key = \(manifest.publicKey) AND id <> \(manifest.id)",
                                           as: String.self, on: connection) {
                return other
            }
            try await connection.query("""
                INSERT INTO auth_app (\(unescaped: Self.appColumns), registered_at)
                VALUES (\(manifest.id), \(manifest.name), \(manifest.publicKey), \(manifest.usageReadWrite), \(manifest.usageAddOnly),
                        \(manifest.preventAutomaticLimitedAccessAlert), \(registeredAt))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, public_key = excluded.public_key,
                    usage_read_write = excluded.usage_read_write, usage_add_only = excluded.usage_add_only,
                    prevent_automatic_limited_access_alert = excluded.prevent_automatic_limited_access_alert,
                    registered_at = excluded.registered_at
                """, logger: logger)
            return nil
        }
    }

    func apps() async throws -> [AppManifest] {
        try await read("list the registered apps") { connection in
            try await all("SELECT \(unescaped: Self.appColumns) FROM auth_app ORDER BY id", as: AppRow.self, on: connection).map(Self.manifest)
        }
    }

    func app(withPublicKey key: String) async throws -> AppManifest? {
        try await read("look an app's key up") { connection in
            try await first("SELECT \(unescaped: Self.appColumns) FROM auth_app WHERE public_key = \(key)", as: AppRow.self, on: connection)
                .map(Self.manifest)
        }
    }

    func app(withID id: String) async throws -> AppManifest? {
        try await read("look an app up") { connection in
            try await first("SELECT \(unescaped: Self.appColumns) FROM auth_app WHERE id = \(id)", as: AppRow.self, on: connection)
                .map(Self.manifest)
        }
    }

    func saveDesktopApp(_ record: DesktopAppRecord) async throws {
        try await storage.withConnection("name a desktop app") { connection in
            _ = try await connection.query("""
                INSERT INTO auth_desktop_app (app, name, announced_at) VALUES (\(record.app), \(record.name), \(record.announcedAt))
                ON CONFLICT (app) DO UPDATE SET name = excluded.name, announced_at = excluded.announced_at
                """, logger: logger)
        }
    }

    func desktopApps() async throws -> [DesktopAppRecord] {
        try await read("list the desktop apps") { connection in
            try await all("SELECT app, name, announced_at FROM auth_desktop_app ORDER BY app", as: (String, String, Date).self, on: connection)
                .map { DesktopAppRecord(app: $0.0, name: $0.1, announcedAt: $0.2) }
        }
    }
}

import Foundation
import GRDB
import LightboxStorage

/// The auth service's SQLite database (WAL). Grants are committed with `synchronous=FULL`: an
/// acknowledged change survives a crash or power loss.
enum AuthDatabase {
    static func open(at url: URL) throws -> DatabasePool {
        try SQLiteDatabase.openPool(at: url, migrator: migrator)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 app registry") { db in
            try db.create(table: "app") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("publicKey", .text).notNull().unique()
                t.column("usageReadWrite", .text)
                t.column("usageAddOnly", .text)
                t.column("preventAutomaticLimitedAccessAlert", .boolean).notNull().defaults(to: false)
                t.column("registeredAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2 authorization, selections, changes, audit") { db in
            try db.create(table: "authorization") { t in
                t.column("app", .text).notNull()
                t.column("level", .text).notNull()
                t.column("status", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["app", "level"])
            }
            try db.create(table: "selection") { t in
                t.column("app", .text).notNull()
                t.column("asset", .text).notNull()
                // The owner's order: the limited picker shows it back as it was chosen.
                t.column("position", .integer).notNull()
                t.primaryKey(["app", "asset"])
            }
            try db.create(table: "change") { t in
                t.autoIncrementedPrimaryKey("token")
                t.column("app", .text).notNull().indexed()
                t.column("level", .text).notNull()
                t.column("status", .text).notNull()
                t.column("added", .text).notNull()
                t.column("removed", .text).notNull()
                t.column("at", .datetime).notNull()
            }
            try db.create(table: "audit") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("app", .text).notNull().indexed()
                t.column("operation", .text).notNull()
                t.column("assetCount", .integer).notNull()
                t.column("outcome", .text).notNull()
                t.column("at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v3 audit of reads, paged and filtered") { db in
            try db.alter(table: "audit") { t in
                t.add(column: "bytes", .integer)
                t.add(column: "asset", .text)
            }
            // Pages go newest first by id, within an app, an operation or a time range.
            try db.create(index: "audit_app_id", on: "audit", columns: ["app", "id"])
            try db.create(index: "audit_operation_id", on: "audit", columns: ["operation", "id"])
            try db.create(index: "audit_at", on: "audit", columns: ["at"])
        }
        migrator.registerMigration("v4 audit repeats collapsed") { db in
            try db.alter(table: "audit") { t in
                t.add(column: "times", .integer).notNull().defaults(to: 1)
                t.add(column: "lastAt", .datetime)
            }
        }
        migrator.registerMigration("v5 desktop apps named by lightbox-portal") { db in
            try db.create(table: "desktopApp") { t in
                t.primaryKey("app", .text)
                t.column("name", .text).notNull()
                t.column("announcedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v6 audit by app and time") { db in
            // The privacy report counts one app's lines since a time: a range of this index.
            try db.create(index: "audit_app_at", on: "audit", columns: ["app", "at"])
        }
        migrator.registerMigration("v7 grants that end, access reset when unused") { db in
            try db.alter(table: "authorization") { t in
                t.add(column: "expiresAt", .datetime)
                t.add(column: "afterExpiry", .text)
            }
            try db.create(index: "authorization_expiresAt", on: "authorization", columns: ["expiresAt"])
            try db.create(table: "unusedReset") { t in
                t.primaryKey("app", .text)
                t.column("unusedSince", .datetime).notNull()
                t.column("resetAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v8 limited selections that follow albums") { db in
            // The albums a limited selection follows: the app sees their members, now and later,
            // which the picker joins in its own catalog (auth never holds an album's assets).
            try db.create(table: "selectionAlbum") { t in
                t.column("app", .text).notNull()
                t.column("album", .text).notNull()
                t.column("position", .integer).notNull()
                t.primaryKey(["app", "album"])
            }
            try db.alter(table: "change") { t in
                t.add(column: "addedAlbums", .text)
                t.add(column: "removedAlbums", .text)
            }
        }
        migrator.registerMigration("v9 location by consent") { db in
            // Per app, beside its statuses: the location it last asked for with library access
            // (what a prompt asked; null: never asked) and the one the owner gave.
            try db.create(table: "locationAccess") { t in
                t.primaryKey("app", .text)
                t.column("requested", .text)
                t.column("granted", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
        return migrator
    }
}

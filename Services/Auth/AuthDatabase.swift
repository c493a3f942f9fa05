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
        return migrator
    }
}

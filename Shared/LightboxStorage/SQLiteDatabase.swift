import Foundation
import GRDB

/// The SQLite conventions both services share: a GRDB pool in WAL mode whose commits are durable
/// (`synchronous=FULL`: an acknowledged write survives a crash or power loss), migrated on open.
public enum SQLiteDatabase {
    public static func openPool(at url: URL, migrator: DatabaseMigrator) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let pool = try DatabasePool(path: url.path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }
}

import Foundation
import GRDB

/// The `watchedFile` table: each watched file's path, its state when last read and the asset it
/// became (nil: not media).
struct WatchedFiles: WatchedFileStorage {
    let database: DatabasePool

    typealias Row = WatchedFileRow

    /// The rows of files below `folder`: the paths between "folder/" and "folder0" ("0" follows "/"),
    /// a range of the primary key.
    func rows(below folder: String) async throws -> [Row] {
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return try await database.read { db in
            try Self.fetch(db, "SELECT path, asset, size, modified, device, inode FROM watchedFile WHERE path > ? AND path < ?",
                           [base + "/", base + "0"])
        }
    }

    /// The rows of these paths.
    func rows(at paths: [String]) async throws -> [Row] {
        guard !paths.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(paths), as: UTF8.self)
        return try await database.read { db in
            try Self.fetch(db, "SELECT path, asset, size, modified, device, inode FROM watchedFile WHERE path IN (SELECT value FROM json_each(?))",
                           [list])
        }
    }

    /// The rows of files with these inodes (a moved file keeps its inode).
    func rows(withInodes inodes: [UInt64]) async throws -> [Row] {
        guard !inodes.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(inodes.map { Int64(bitPattern: $0) }), as: UTF8.self)
        return try await database.read { db in
            try Self.fetch(db, "SELECT path, asset, size, modified, device, inode FROM watchedFile WHERE inode IN (SELECT value FROM json_each(?))",
                           [list])
        }
    }

    /// Whether another watched file than `path` became `asset`.
    func isShared(_ asset: String, besides path: String) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM watchedFile WHERE asset = ? AND path <> ?)", arguments: [asset, path]) ?? false
        }
    }

    /// Whether any watched file became `asset`.
    func isWatched(_ asset: String) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM watchedFile WHERE asset = ?)", arguments: [asset]) ?? false
        }
    }

    /// Records the rows (replacing rows of the same paths), in one transaction.
    func save(_ rows: [Row]) async throws {
        guard !rows.isEmpty else { return }
        try await database.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO watchedFile (path, asset, size, modified, device, inode) VALUES (?, ?, ?, ?, ?, ?)
                """)
            for row in rows {
                try statement.execute(arguments: [row.path, row.asset, row.state.size, row.state.modified,
                                                  Int64(bitPattern: row.state.device), Int64(bitPattern: row.state.inode)])
            }
        }
    }

    /// Moves a row to a new path (replacing a row there), keeping its asset.
    func move(from old: String, to new: String, state: FileState) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM watchedFile WHERE path = ?", arguments: [new])
            try db.execute(sql: "UPDATE watchedFile SET path = ?, size = ?, modified = ?, device = ?, inode = ? WHERE path = ?",
                           arguments: [new, state.size, state.modified, Int64(bitPattern: state.device), Int64(bitPattern: state.inode), old])
        }
    }

    func delete(_ paths: [String]) async throws {
        guard !paths.isEmpty else { return }
        try await database.write { db in
            for path in paths { try db.execute(sql: "DELETE FROM watchedFile WHERE path = ?", arguments: [path]) }
        }
    }

    private static func fetch(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [Row] {
        // A cursor: no second copy of every row while a large folder's rows are read.
        try Array(GRDB.Row.fetchCursor(db, sql: sql, arguments: arguments).map { row in
            Row(path: row[0], asset: row[1],
                state: FileState(size: row[2], modified: row[3], device: UInt64(bitPattern: row[4]), inode: UInt64(bitPattern: row[5])))
        })
    }
}

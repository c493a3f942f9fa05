import Foundation
import LightboxPostgres
import Logging
import PostgresNIO

/// The `watchedFile` table in PostgreSQL. Paths compare byte by byte (`COLLATE "C"`), so the files
/// below a folder are a range of the primary key, as in SQLite.
struct PostgresWatchedFiles: WatchedFileStorage {
    let postgres: PostgresStorage
    let logger: Logger

    private static let columns = "path, asset, size, modified, device, inode"

    func rows(below folder: String) async throws -> [WatchedFileRow] {
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return try await fetch("read a watched folder's files", """
            SELECT \(unescaped: Self.columns) FROM watchedFile WHERE path > \(base + "/") AND path < \(base + "0")
            """)
    }

    func rows(at paths: [String]) async throws -> [WatchedFileRow] {
        guard !paths.isEmpty else { return [] }
        return try await fetch("read watched files", "SELECT \(unescaped: Self.columns) FROM watchedFile WHERE path = ANY(\(paths))")
    }

    func rows(withInodes inodes: [UInt64]) async throws -> [WatchedFileRow] {
        guard !inodes.isEmpty else { return [] }
        let list = inodes.map { Int64(bitPattern: $0) }
        return try await fetch("read watched files by inode", "SELECT \(unescaped: Self.columns) FROM watchedFile WHERE inode = ANY(\(list))")
    }

    func isShared(_ asset: String, besides path: String) async throws -> Bool {
        try await exists("look up a watched file's asset", "SELECT 1 FROM watchedFile WHERE asset = \(asset) AND path <> \(path) LIMIT 1")
    }

    func isWatched(_ asset: String) async throws -> Bool {
        try await exists("look up a watched file's asset", "SELECT 1 FROM watchedFile WHERE asset = \(asset) LIMIT 1")
    }

    func save(_ rows: [WatchedFileRow]) async throws {
        guard !rows.isEmpty else { return }
        let logger = self.logger
        try await postgres.transaction("record watched files") { connection in
            for row in rows {
                try await connection.query("""
                    INSERT INTO watchedFile (\(unescaped: Self.columns)) VALUES (\(row.path), \(row.asset), \(row.state.size), \(row.state.modified),
                        \(Int64(bitPattern: row.state.device)), \(Int64(bitPattern: row.state.inode)))
                    ON CONFLICT (path) DO UPDATE SET asset = EXCLUDED.asset, size = EXCLUDED.size, modified = EXCLUDED.modified,
                        device = EXCLUDED.device, inode = EXCLUDED.inode
                    """, logger: logger)
            }
        }
    }

    func move(from old: String, to new: String, state: FileState) async throws {
        let logger = self.logger
        try await postgres.transaction("record a watched file's move") { connection in
            try await connection.query("DELETE FROM watchedFile WHERE path = \(new)", logger: logger)
            try await connection.query("""
                UPDATE watchedFile SET path = \(new), size = \(state.size), modified = \(state.modified),
                    device = \(Int64(bitPattern: state.device)), inode = \(Int64(bitPattern: state.inode)) WHERE path = \(old)
                """, logger: logger)
        }
    }

    func delete(_ paths: [String]) async throws {
        guard !paths.isEmpty else { return }
        let logger = self.logger
        _ = try await postgres.transaction("forget watched files") { connection in
            try await connection.query("DELETE FROM watchedFile WHERE path = ANY(\(paths))", logger: logger)
        }
    }

    private func fetch(_ doing: String, _ query: PostgresQuery) async throws -> [WatchedFileRow] {
        let logger = self.logger
        return try await postgres.withConnection(doing) { connection in
            var rows: [WatchedFileRow] = []
            for try await (path, asset, size, modified, device, inode) in try await connection.query(query, logger: logger)
                .decode((String, String?, Int64, Int64, Int64, Int64).self) {
                rows.append(WatchedFileRow(path: path, asset: asset, state: FileState(size: size, modified: modified,
                                                                                      device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode))))
            }
            return rows
        }
    }

    private func exists(_ doing: String, _ query: PostgresQuery) async throws -> Bool {
        let logger = self.logger
        return try await postgres.withConnection(doing) { connection in
            try await PostgresCatalogStorage.exists(connection.query(query, logger: logger))
        }
    }
}

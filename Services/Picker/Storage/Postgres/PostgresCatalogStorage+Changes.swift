import Foundation
import PostgresNIO

/// The change log in PostgreSQL, read in token order (`changeLogLock` keeps tokens committing in order).
extension PostgresCatalogStorage {
    func changes(after token: Int64, limit: Int) async throws -> [LibraryChangeLog.Entry] {
        try await rows("read the library's changes", """
            SELECT \(unescaped: LibraryChangeLog.Entry.postgresColumns) FROM libraryChange WHERE token > \(token) ORDER BY token LIMIT \(limit)
            """, LibraryChangeLog.Entry.init(postgres:))
    }

    func latestChangeToken() async throws -> Int64 {
        try await rows("read the library's newest change", "SELECT COALESCE(MAX(token), 0) FROM libraryChange") { try $0.decode(Int64.self) }
            .first ?? 0
    }
}

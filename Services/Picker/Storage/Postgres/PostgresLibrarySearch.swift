import Foundation
import LightboxProtocol
import PostgresNIO

/// The owner's search (`LibrarySearch`) as conditions of a PostgreSQL page: dates and kinds as
/// conditions, words as the city, country or camera they name (looked up first, on the
/// `lower(column)` indexes), else as part of a file name (the trigram index).
extension PostgresCatalogStorage {
    static func conditions(of search: LibrarySearch, _ statement: inout PostgresStatement, _ connection: PostgresConnection,
                           _ logger: Logger) async throws -> [String] {
        var conditions: [String] = []
        if let dates = search.dates {
            conditions.append("creationDate >= \(statement.bind(dates.start)) AND creationDate < \(statement.bind(dates.end))")
        }
        conditions += search.kinds.map { statement.condition($0) }
        guard !search.words.isEmpty else { return conditions }
        if let named = try await named(search.words, &statement, connection, logger) {
            conditions.append(named)
        } else {
            for word in search.words.split(separator: " ").map(String.init) {
                if let named = try await named(word, &statement, connection, logger) {
                    conditions.append(named)
                } else {
                    conditions.append(statement.fileNameContains(word))
                }
            }
        }
        return conditions
    }

    /// The rows whose city, country or camera `text` names, or nil when it names none in the library.
    static func named(_ text: String, _ statement: inout PostgresStatement, _ connection: PostgresConnection,
                      _ logger: Logger) async throws -> String? {
        var matches: [String] = []
        for column in [SearchColumn.city, .country] {
            let query = PostgresQuery(unsafeSQL: "SELECT 1 FROM asset WHERE lower(\(column.rawValue)) = lower($1) LIMIT 1", binds: {
                var binds = PostgresBindings()
                binds.append(text)
                return binds
            }())
            if try await exists(connection.query(query, logger: logger)) {
                matches.append("lower(\(column.rawValue)) = lower(\(statement.bind(text)))")
            }
        }
        // Distinct cameras are few: at most `maximumCameras` are read, and those containing the
        // text (case and diacritics aside, as SQLite's search compares) are the matches.
        var cameras: [String] = []
        let distinct = try await connection.query("""
            SELECT DISTINCT camera FROM asset WHERE camera IS NOT NULL ORDER BY camera LIMIT \(LibrarySearch.maximumCameras)
            """, logger: logger)
        for try await camera in distinct.decode(String.self) where camera.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil {
            cameras.append(camera)
        }
        if cameras.count == 1 {
            matches.append("lower(camera) = lower(\(statement.bind(cameras[0])))")
        } else if cameras.count > 1 {
            matches.append("camera = ANY(\(statement.bind(cameras)))")
        }
        return matches.isEmpty ? nil : "(" + matches.joined(separator: " OR ") + ")"
    }
}

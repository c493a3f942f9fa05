import Foundation
import LightboxProtocol
import PostgresNIO

/// The library a page at a time in PostgreSQL, continued by a keyset cursor.
extension PostgresCatalogStorage {
    func page(filter: PickerFilter?, browse: OwnerBrowse, limit: Int, after cursor: LibraryCursor?) async throws
        -> (assets: [AssetSummary], next: LibraryCursor?) {
        let logger = self.logger
        return try await postgres.withConnection("read a page of the library") { connection in
            var statement = PostgresStatement()
            var conditions = filter.map { [statement.condition($0)] } ?? []
            if let search = browse.search {
                conditions += try await Self.conditions(of: search, &statement, connection, logger)
            }
            if let album = browse.album { conditions.append(statement.inAlbum(album)) }
            if let before = browse.before { conditions.append("creationDate < \(statement.bind(before))") }
            return try await Self.page(connection, logger, &statement, conditions: conditions, order: .newestFirst, limit: limit, after: cursor)
        }
    }

    func assets(matching query: AssetQuery, inSelectionOf app: String?, after cursor: LibraryCursor?) async throws
        -> (page: [AssetSummary], total: Int, next: LibraryCursor?) {
        let (logger, counts) = (self.logger, self.counts)
        let limit = min(max(query.limit ?? 100, 0), 1000)
        let offset = cursor == nil ? max(query.offset ?? 0, 0) : 0
        return try await postgres.withConnection("read a page of an app's query") { connection in
            var statement = PostgresStatement()
            var conditions: [String] = []
            if let mediaType = query.mediaType { conditions.append("mediaType = \(statement.bind(mediaType.rawValue))") }
            if let from = query.from { conditions.append("creationDate >= \(statement.bind(from))") }
            if let to = query.to { conditions.append("creationDate < \(statement.bind(to))") }
            // Counted once per state of the library and the selection, not on every page.
            let libraryToken = try await Self.first(connection, logger, "SELECT COALESCE(MAX(token), 0) FROM libraryChange", Int64.self) ?? 0
            let selectionVersion = try await app.asyncFlatMap { app in
                try await Self.first(connection, logger, "SELECT version FROM appSelectionVersion WHERE app = \(app)", Int64.self)
            }
            let key = QueryCounts.Key(app: app, mediaType: query.mediaType?.rawValue, from: query.from, to: query.to,
                                      libraryToken: libraryToken, selectionVersion: selectionVersion)
            // Counting reads the whole selection anyway: hashed.
            let total = try await Self.count(connection, logger, counts, key, statement, conditions,
                                             app.map { app in [{ $0.inSelection(of: app, by: .hashed) }] } ?? [])
            if let app {
                let library = try await Self.count(connection, logger, counts, QueryCounts.Key(libraryToken: libraryToken), PostgresStatement(), [])
                conditions.append(statement.inSelection(of: app, by: SelectionLookup(limit: limit, matching: total, library: library)))
            }
            let order: Catalog.LibraryOrder = query.sort == .oldestFirst ? .oldestFirst : .newestFirst
            let page = try await Self.page(connection, logger, &statement, conditions: conditions, order: order, limit: limit, after: cursor,
                                           offset: offset)
            return (page.assets, total, page.next)
        }
    }

    func albumPage(_ album: String, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetSummary], next: LibraryCursor?) {
        let logger = self.logger
        return try await postgres.withConnection("read a page of an album") { connection in
            var statement = PostgresStatement()
            let conditions = [statement.inAlbum(album)]
            return try await Self.page(connection, logger, &statement, conditions: conditions, order: .newestFirst, limit: limit, after: cursor)
        }
    }

    /// The assets matching `conditions` and the conditions `more` adds, counted once per `key`
    /// (a state of the library and the selection).
    static func count(_ connection: PostgresConnection, _ logger: Logger, _ counts: QueryCounts, _ key: QueryCounts.Key,
                      _ statement: PostgresStatement, _ conditions: [String],
                      _ more: [(inout PostgresStatement) -> String] = []) async throws -> Int {
        if let known = counts.known(key) { return known }
        var counting = statement
        let all = conditions + more.map { $0(&counting) }
        counting.append("SELECT COUNT(*) FROM asset" + (all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")))
        let total = Int(try await first(connection, logger, counting.query, Int64.self) ?? 0)
        counts.remember(total, for: key)
        return total
    }

    /// Reads the page: `limit` + 1 rows in library order after the cursor (the one more tells
    /// whether another page follows).
    static func page(_ connection: PostgresConnection, _ logger: Logger, _ statement: inout PostgresStatement, conditions: [String],
                     order: Catalog.LibraryOrder, limit: Int, after cursor: LibraryCursor?, offset: Int = 0) async throws
        -> (assets: [AssetSummary], next: LibraryCursor?) {
        try pageStatement(&statement, conditions: conditions, order: order, limit: limit, after: cursor, offset: offset)
        var rows: [(summary: AssetSummary, microseconds: Int64)] = []
        for try await row in try await connection.query(statement.query, logger: logger) { rows.append(try AssetSummary.postgres(row)) }
        let page = Array(rows.prefix(limit))
        guard rows.count > limit, let last = page.last else { return (page.map(\.summary), nil) }
        return (page.map(\.summary), LibraryCursor(storedDate: String(last.microseconds), identifier: last.summary.identifier))
    }

    /// Appends the SELECT of a page to `statement`: what `page` runs, and what a test asks PostgreSQL to explain.
    static func pageStatement(_ statement: inout PostgresStatement, conditions: [String], order: Catalog.LibraryOrder, limit: Int,
                              after cursor: LibraryCursor?, offset: Int = 0) throws {
        var conditions = conditions
        if let cursor { conditions.append(try order.postgresAfter(cursor, &statement)) }
        let (limitBind, offsetBind) = (statement.bind(limit + 1), statement.bind(offset))
        statement.append("SELECT \(AssetSummary.postgresColumns) FROM asset"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " \(order.postgresOrderBy) LIMIT \(limitBind) OFFSET \(offsetBind)")
    }

    /// The first column of the first row, if any.
    static func first<Value: PostgresDecodable>(_ connection: PostgresConnection, _ logger: Logger, _ query: PostgresQuery,
                                                _ type: Value.Type) async throws -> Value? {
        for try await row in try await connection.query(query, logger: logger) { return try row.decode(Value.self) }
        return nil
    }
}

extension Optional {
    /// `flatMap` with an async transform.
    func asyncFlatMap<Other>(_ transform: (Wrapped) async throws -> Other?) async rethrows -> Other? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

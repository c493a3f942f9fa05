import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The library a page at a time, filtered in SQL and continued by a keyset cursor (not OFFSET), so
/// the first and the thousandth page cost the same.
extension SQLiteCatalogStorage {
    func page(filter: PickerFilter?, browse: OwnerBrowse, limit: Int, after cursor: LibraryCursor?) async throws
        -> (assets: [AssetSummary], next: LibraryCursor?) {
        try await database.read(Catalog.OwnerPage(filter: filter, browse: browse, limit: limit, cursor: cursor))
    }

    func assets(matching query: AssetQuery, inSelectionOf app: String?, after cursor: LibraryCursor?) async throws
        -> (page: [AssetSummary], total: Int, next: LibraryCursor?) {
        try await database.read(Catalog.AppPage(query: query, app: app, cursor: cursor, counts: counts))
    }

    func albumPage(_ album: String, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetSummary], next: LibraryCursor?) {
        try await database.detachedRead { db in
            try Catalog.page(db, conditions: [Catalog.inAlbum(album)], order: .newestFirst, limit: limit, after: cursor)
        }
    }
}

extension Catalog {

    /// A page of the owner's view. Unfiltered and small, it walks the library-order index for
    /// `limit` + 1 rows and no more: a point read.
    struct OwnerPage: DatabaseQuery {
        var filter: PickerFilter?
        var browse = OwnerBrowse()
        var limit: Int
        var cursor: LibraryCursor?

        var isPointRead: Bool { filter == nil && browse.isEmpty && Self.isPointRead(rowCount: limit) }

        func fetch(_ db: Database) throws -> (assets: [AssetSummary], next: LibraryCursor?) {
            try Catalog.page(db, conditions: try conditions(db), order: .newestFirst, limit: limit, after: cursor)
        }

        func conditions(_ db: Database) throws -> [SQLExpression] {
            (filter.map { [$0.sqlCondition] } ?? []) + (try browse.conditions(db))
        }
    }

    /// A page of an app's query, with the total it matches.
    struct AppPage: DatabaseQuery {
        var query: AssetQuery
        var app: String?
        var cursor: LibraryCursor?
        var counts: QueryCounts

        var limit: Int { min(max(query.limit ?? 100, 0), 1000) }
        var offset: Int { cursor == nil ? max(query.offset ?? 0, 0) : 0 }

        /// A small page without filters, in the whole library or a small selection (an IN list), whose
        /// total is counted already, walks the library-order index for `limit` + 1 rows and no more.
        /// Whether the selection is small and the total counted is known only once the read is under
        /// way (`fetchInPlace`).
        var isPointRead: Bool {
            query.mediaType == nil && query.from == nil && query.to == nil && offset == 0 && Self.isPointRead(rowCount: limit)
        }

        func fetch(_ db: Database) throws -> (page: [AssetSummary], total: Int, next: LibraryCursor?) {
            try read(db, inPlace: false)!
        }

        func fetchInPlace(_ db: Database) throws -> (page: [AssetSummary], total: Int, next: LibraryCursor?)? {
            try read(db, inPlace: true)
        }

        /// The page, or nil when `inPlace` and the read might walk or count more than a point read
        /// does: a large selection (EXISTS per row), one that follows albums (their members are
        /// counted to choose the query's shape) or a total not counted yet.
        private func read(_ db: Database, inPlace: Bool) throws -> (page: [AssetSummary], total: Int, next: LibraryCursor?)? {
            var conditions: [SQLExpression] = []
            if let app {
                var size = try SelectionTable.size(of: app, db)
                let followsAlbums = try SelectionTable.followsAlbums(app, db)
                if inPlace, size > SelectionTable.smallSelection || followsAlbums { return nil }
                if followsAlbums { size += try SelectionTable.albumMembers(of: app, db) }
                conditions.append(SelectionTable.contains(app: app, size: size, followsAlbums: followsAlbums))
            }
            if let mediaType = query.mediaType { conditions.append(AssetRecord.Columns.mediaType == mediaType.rawValue) }
            if let from = query.from { conditions.append(AssetRecord.Columns.creationDate >= from) }
            if let to = query.to { conditions.append(AssetRecord.Columns.creationDate < to) }
            // Counted once per state of the library and the selection, not on every page.
            let key = QueryCounts.Key(
                app: app, mediaType: query.mediaType?.rawValue, from: query.from, to: query.to,
                libraryToken: try LibraryChangeLog.latestToken(in: db),
                selectionVersion: try app.flatMap { try SelectionTable.version(of: $0, db) })
            if inPlace, counts.known(key) == nil { return nil }
            let total = try counts.count(for: key) { try AssetRecord.filter(conditions.joined(operator: .and)).fetchCount(db) }
            let order: LibraryOrder = query.sort == .oldestFirst ? .oldestFirst : .newestFirst
            let page = try Catalog.page(db, conditions: conditions, order: order, limit: limit, after: cursor, offset: offset)
            return (page.assets, total, page.next)
        }
    }

    /// Library order and its keyset condition. Both orders walk the `asset_library_order` index
    /// (creationDate DESC, identifier ASC), one forwards and one backwards.
    enum LibraryOrder {
        case newestFirst, oldestFirst

        var orderBy: String {
            switch self {
            case .newestFirst: "ORDER BY creationDate DESC, identifier ASC"
            case .oldestFirst: "ORDER BY creationDate ASC, identifier DESC"
            }
        }

        /// The keyset condition of the page after `cursor`.
        func after(_ cursor: LibraryCursor) -> (sql: String, arguments: StatementArguments) {
            // The leading range term lets SQLite seek the index to the cursor; an OR alone made it walk
            // every row before it, so a deep page was slow (`bench scale` times one).
            let sql = switch self {
            case .newestFirst: "(creationDate <= ? AND (creationDate < ? OR identifier > ?))"
            case .oldestFirst: "(creationDate >= ? AND (creationDate > ? OR identifier < ?))"
            }
            return (sql, [cursor.storedDate, cursor.storedDate, cursor.identifier])
        }
    }

    static func page(_ db: Database, conditions: [SQLExpression], order: LibraryOrder, limit: Int, after cursor: LibraryCursor?,
                     offset: Int = 0) throws -> (assets: [AssetSummary], next: LibraryCursor?) {
        let (statement, arguments) = try pageStatement(db, conditions: conditions, order: order, limit: limit, after: cursor, offset: offset)
        // The last row of the page carries the cursor's creation date, read as stored.
        let (rows, storedDate) = try AssetSummary.fetchAll(positionally: statement, arguments: arguments,
                                                           storedTextOf: .creationDate, inRecord: limit - 1)
        let assets = Array(rows.prefix(limit))
        guard rows.count > limit, let last = assets.last, let storedDate else { return (assets, nil) }
        return (assets, LibraryCursor(storedDate: storedDate, identifier: last.identifier))
    }

    /// The statement of a page and its arguments (nil: the ones it is bound to); what `page` runs,
    /// and what a test asks SQLite to explain.
    static func pageStatement(_ db: Database, conditions: [SQLExpression], order: LibraryOrder, limit: Int, after cursor: LibraryCursor?,
                              offset: Int = 0) throws -> (Statement, StatementArguments?) {
        let keyset = cursor.map(order.after)
        // One row more than asked tells whether another page follows.
        let tail = " \(order.orderBy) LIMIT ? OFFSET ?"
        let tailArguments: StatementArguments = [limit + 1, offset]
        // Pages of one shape share one compiled statement; only the arguments change.
        if conditions.isEmpty {
            // The whole library in order (the owner's listing, an app with full access): the text is
            // ours, so the statement comes straight from the cache, without building it through
            // GRDB's SQL literals for every page.
            let statement = try db.cachedStatement(sql: selectSummaries + (keyset.map { " WHERE " + $0.sql } ?? "") + tail)
            return (statement, (keyset?.arguments ?? []) + tailArguments)
        }
        var sql: SQL = "\(sql: selectSummaries) WHERE (\(conditions.joined(operator: .and)))"
        if let keyset { sql.append(sql: " AND " + keyset.sql, arguments: keyset.arguments) }
        sql.append(sql: tail, arguments: tailArguments)
        return (try SQLRequest<Row>(literal: sql, cached: true).makePreparedRequest(db, forSingleResult: false).statement, nil)
    }

    private static let selectSummaries = "SELECT \(AssetSummary.selectList) FROM asset"
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The library a page at a time, filtered in SQL and continued by a keyset cursor (not OFFSET), so
/// the first and the thousandth page cost the same.
extension Catalog {
    /// The owner's view: newest first, every asset a filter lets through.
    func page(filter: PickerFilter?, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetSummary], next: LibraryCursor?) {
        @Sendable func read(_ db: Database) throws -> (assets: [AssetSummary], next: LibraryCursor?) {
            try Self.page(db, conditions: filter.map { [$0.sqlCondition] } ?? [], order: .newestFirst, limit: limit, after: cursor)
        }
        // Unfiltered, a page walks the library-order index for `limit` + 1 rows and no more.
        return try await database.read(inPlaceIf: filter == nil && limit <= DatabasePool.pointReadLimit, read)
    }

    /// An app's query: by media type and date range, limited to `app`'s selection (a join on the
    /// SelectionTable) when given; paged by cursor, or by offset when there is none. Also returns the total count.
    func assets(matching query: AssetQuery, inSelectionOf app: String? = nil) async throws
        -> (page: [AssetSummary], total: Int, next: LibraryCursor?) {
        let cursor = try query.after.map { text throws(LightboxError) in try LibraryCursor(decoding: text) }
        let limit = min(max(query.limit ?? 100, 0), 1000)
        let offset = cursor == nil ? max(query.offset ?? 0, 0) : 0
        let counts = self.counts
        /// The page, or nil when `inPlace` and the read might walk or count more than a point read
        /// does: a large selection (EXISTS per row) or a total not counted yet.
        @Sendable func read(_ db: Database, inPlace: Bool) throws -> (page: [AssetSummary], total: Int, next: LibraryCursor?)? {
            var conditions: [SQLExpression] = []
            if let app {
                let size = try SelectionTable.size(of: app, db)
                if inPlace, size > SelectionTable.smallSelection { return nil }
                conditions.append(SelectionTable.contains(app: app, size: size))
            }
            if let mediaType = query.mediaType { conditions.append(Column("mediaType") == mediaType.rawValue) }
            if let from = query.from { conditions.append(Column("creationDate") >= from) }
            if let to = query.to { conditions.append(Column("creationDate") < to) }
            // Counted once per state of the library and the selection, not on every page.
            let key = QueryCounts.Key(
                app: app, mediaType: query.mediaType?.rawValue, from: query.from, to: query.to,
                libraryToken: try LibraryChangeLog.latestToken(in: db),
                selectionVersion: try app.flatMap { try SelectionTable.version(of: $0, db) })
            if inPlace, counts.known(key) == nil { return nil }
            let total = try counts.count(for: key) { try AssetRecord.filter(conditions.joined(operator: .and)).fetchCount(db) }
            let order: LibraryOrder = query.sort == .oldestFirst ? .oldestFirst : .newestFirst
            let page = try Self.page(db, conditions: conditions, order: order, limit: limit, after: cursor, offset: offset)
            return (page.assets, total, page.next)
        }
        // A small page without filters, in the whole library or a small selection (an IN list), whose
        // total is counted already, walks the library-order index for `limit` + 1 rows and no more: a
        // point read. Anything that may walk further, or count, is read asynchronously.
        if query.mediaType == nil, query.from == nil, query.to == nil, offset == 0, limit <= DatabasePool.pointReadLimit,
           let answer = try database.pointRead({ try read($0, inPlace: true) }) {
            return answer
        }
        return try await database.detachedRead { db in try read(db, inPlace: false)! }
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
        let keyset = cursor.map(order.after)
        // One row more than asked tells whether another page follows.
        let tail = " \(order.orderBy) LIMIT ? OFFSET ?"
        let tailArguments: StatementArguments = [limit + 1, offset]
        // Pages of one shape share one compiled statement; only the arguments change.
        let statement: Statement
        let arguments: StatementArguments?
        if conditions.isEmpty {
            // The whole library in order (the owner's listing, an app with full access): the text is
            // ours, so the statement comes straight from the cache, without building it through
            // GRDB's SQL literals for every page.
            statement = try db.cachedStatement(sql: "SELECT \(AssetSummaryRows.columns) FROM asset" + (keyset.map { " WHERE " + $0.sql } ?? "") + tail)
            arguments = (keyset?.arguments ?? []) + tailArguments
        } else {
            var sql: SQL = "SELECT \(sql: AssetSummaryRows.columns) FROM asset WHERE (\(conditions.joined(operator: .and)))"
            if let keyset { sql.append(sql: " AND " + keyset.sql, arguments: keyset.arguments) }
            sql.append(sql: tail, arguments: tailArguments)
            statement = try SQLRequest<Row>(literal: sql, cached: true).makePreparedRequest(db, forSingleResult: false).statement
            arguments = nil
        }
        let rows = try AssetSummaryRows.fetchAll(statement, arguments: arguments, in: db, storedDateOfRow: limit - 1)
        let assets = Array(rows.summaries.prefix(limit))
        guard rows.summaries.count > limit, let last = assets.last, let storedDate = rows.cursorDate else { return (assets, nil) }
        return (assets, LibraryCursor(storedDate: storedDate, identifier: last.identifier))
    }
}

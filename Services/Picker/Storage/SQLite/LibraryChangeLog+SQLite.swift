import Foundation
import GRDB
import LightboxStorage

/// The change log in SQLite: `libraryChange`'s INTEGER PRIMARY KEY gives tokens in commit order, as
/// SQLite has one writer at a time.
extension LibraryChangeLog {
    static func record(_ kind: Kind, asset: String? = nil, album: String? = nil, app: String? = nil, in db: Database) throws {
        try db.execute(sql: "INSERT INTO libraryChange (kind, asset, album, at, app) VALUES (?, ?, ?, ?, ?)",
                       arguments: [kind.rawValue, asset, album, Date(), app])
    }

    static func entries(after token: Int64, limit: Int, in db: Database) throws -> [Entry] {
        try Entry.fetchAll(positionally: db.cachedStatement(sql: entriesAfter), arguments: [token, limit])
    }

    private static let entriesAfter = "SELECT \(Entry.selectList) FROM libraryChange WHERE token > ? ORDER BY token LIMIT ?"

    static func latestToken(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(token) FROM libraryChange")) ?? 0
    }
}

/// A change row, read by position.
extension LibraryChangeLog.Entry: PositionalRecord {
    enum Columns: String, CaseIterable, ColumnExpression {
        case token, kind, asset, album, at, app
    }

    init(row: inout PositionalRow<Columns>) throws {
        self.init(token: try row.read(.token), kind: try row.read(.kind), asset: try row.read(.asset), album: try row.read(.album),
                  at: try row.read(.at), app: try row.read(.app))
    }
}

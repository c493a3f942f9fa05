import Foundation
import GRDB
import LightboxProtocol

/// A search as SQL conditions on the `asset` table, for the owner's keyset pages.
///
/// The words are looked up first, by a few index seeks: a city or a country of the library
/// ("Lisbon", "Portugal") or a camera ("iPhone") means its rows, an equality the page walks in
/// library order on that column's index (`SearchColumn`), so a page costs the same in any library.
/// Only words that name none of these search file names (`inFileName`): through their trigram
/// index when few match, else by walking the library in order until a page is full. The whole words are tried
/// first ("New York", "Sample Camera 1"), then each word alone.
extension LibrarySearch {
    func conditions(_ db: Database) throws -> [SQLExpression] {
        var conditions: [SQLExpression] = []
        if let dates {
            conditions.append(Column("creationDate") >= dates.start && Column("creationDate") < dates.end)
        }
        conditions += kinds.map(\.sqlCondition)
        guard !words.isEmpty else { return conditions }
        if let named = try Self.named(words, db) {
            conditions.append(named)
        } else {
            for word in words.split(separator: " ").map(String.init) {
                // Not `??`: GRDB reads that as SQL's IFNULL, which hides the condition from the planner.
                if let named = try Self.named(word, db) {
                    conditions.append(named)
                } else {
                    conditions.append(try Self.inFileName(word, db))
                }
            }
        }
        return conditions
    }

    /// The rows whose city, country or camera `text` names, or nil when it names none in the library.
    /// One city, country or camera is one index's rows in library order. Several (a city named like
    /// a country, "iPhone" in three models' names) are gathered from their indexes and sorted on
    /// each page; several cameras, whose rows are usually most of the library, are instead found by
    /// walking the library in order (`+camera` keeps SQLite off the camera index).
    static func named(_ text: String, _ db: Database) throws -> SQLExpression? {
        var matches: [SQLExpression] = []
        for column in [SearchColumn.city, .country] where try exists(column, equalTo: text, db) {
            matches.append(equal(column, text))
        }
        let cameras = try cameras(containing: text, db)
        if cameras.count == 1 {
            matches.append(equal(.camera, cameras[0]))
        } else if cameras.count > 1 {
            matches.append(SQL("+\(Column(SearchColumn.camera.rawValue)) IN \(cameras)").sqlExpression)
        }
        return matches.isEmpty ? nil : matches.joined(operator: .or)
    }

    static func equal(_ column: SearchColumn, _ value: String) -> SQLExpression {
        SQL("\(Column(column.rawValue)) = \(value) COLLATE NOCASE").sqlExpression
    }

    static func exists(_ column: SearchColumn, equalTo value: String, _ db: Database) throws -> Bool {
        let sql = "SELECT 1 FROM asset WHERE \(column.rawValue) = ? COLLATE NOCASE LIMIT 1"
        return try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [value]) ?? false
    }

    /// Distinct cameras of the library are few: they are read one index seek each (a loose index
    /// scan), at most `maximumCameras`, and those containing `text` are returned.
    static func cameras(containing text: String, _ db: Database) throws -> [String] {
        let first = try db.cachedStatement(sql: "SELECT camera FROM asset WHERE camera IS NOT NULL ORDER BY camera COLLATE NOCASE LIMIT 1")
        let following = try db.cachedStatement(sql: "SELECT camera FROM asset WHERE camera > ? COLLATE NOCASE ORDER BY camera COLLATE NOCASE LIMIT 1")
        var found: [String] = []
        var camera = try String.fetchOne(first)
        var read = 0
        while let current = camera, read < maximumCameras {
            if current.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil { found.append(current) }
            read += 1
            camera = try String.fetchOne(following, arguments: [current])
        }
        return found
    }

    static let maximumCameras = 1000

    /// File names containing `word`; `%`, `_` and `\` in it are matched as themselves.
    ///
    /// A word of three characters or more that few file names contain is looked up in their
    /// trigram index (`assetFileName`): its rows are read by rowid and the page sorts only them, so
    /// a rare name costs the same in any library. A word most names contain (or a shorter one) is
    /// found by walking the library in order, where matches come soon. The LIKE stays in both: the
    /// index only narrows.
    static func inFileName(_ word: String, _ db: Database) throws -> SQLExpression {
        let escaped = word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        let like = SQL("\(Column("fileName")) LIKE \("%" + escaped + "%") ESCAPE '\\'")
        guard word.count >= 3 else { return like.sqlExpression }
        // An FTS5 phrase: the word as one run of trigrams, its quotes doubled.
        let phrase = "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let counting = try db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM assetFileName WHERE assetFileName MATCH ? LIMIT ?)")
        let found = try Int.fetchOne(counting, arguments: [phrase, fewFileNames]) ?? 0
        guard found < fewFileNames else { return like.sqlExpression }
        return SQL("rowid IN (SELECT rowid FROM assetFileName WHERE assetFileName MATCH \(phrase)) AND \(like)").sqlExpression
    }

    /// Up to this many file names matching, a page reads them through the trigram index and sorts
    /// them; more, and it walks the library in order instead.
    static let fewFileNames = 2_000
}

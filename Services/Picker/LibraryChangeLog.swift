import Foundation
import GRDB
import LightboxProtocol

/// The library's persistent change history (`libraryChange`): one row per inserted, removed or
/// changed asset and per album membership change, written in the same transaction as the change,
/// so a token names one point in the library's history across restarts.
enum LibraryChangeLog {
    enum Kind: String {
        case inserted, removed, changed, album
    }

    struct Entry: Sendable {
        var token: Int64
        var kind: String
        var asset: String?
        var album: String?
        var at: Date
    }

    static func record(_ kind: Kind, asset: String? = nil, album: String? = nil, in db: Database) throws {
        try db.execute(sql: "INSERT INTO libraryChange (kind, asset, album, at) VALUES (?, ?, ?, ?)",
                       arguments: [kind.rawValue, asset, album, Date()])
    }

    static func entries(after token: Int64, limit: Int, in db: Database) throws -> [Entry] {
        try Row.fetchAll(db, sql: "SELECT * FROM libraryChange WHERE token > ? ORDER BY token LIMIT ?", arguments: [token, limit]).map {
            Entry(token: $0["token"], kind: $0["kind"], asset: $0["asset"], album: $0["album"], at: $0["at"])
        }
    }

    static func latestToken(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(token) FROM libraryChange")) ?? 0
    }

    /// The entry as a change an app receives (what it may see is `LibraryView`'s to say), or nil
    /// for a kind this build does not know.
    static func change(_ entry: Entry) -> LibraryChange? {
        var change = LibraryChange(token: entry.token, at: entry.at)
        switch Kind(rawValue: entry.kind) {
        case .inserted: change.inserted = entry.asset.map { [$0] } ?? []
        case .removed: change.removed = entry.asset.map { [$0] } ?? []
        case .changed: change.changed = entry.asset.map { [$0] } ?? []
        case .album: change.albums = entry.album.map { [$0] } ?? []
        case nil: return nil
        }
        return change.isEmpty ? nil : change
    }
}

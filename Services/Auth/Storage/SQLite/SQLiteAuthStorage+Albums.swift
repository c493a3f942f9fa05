import Foundation
import GRDB
import LightboxProtocol

/// Limited selections that follow albums. Auth keeps which albums an app's selection follows, never
/// their members: an album's assets live in the picker's catalog, which joins them to the app's
/// albums when it reads, so the app sees what is added to an album later and loses what is taken
/// out, and no list of members travels per call or per change. An identifier that names no album
/// (one since deleted) follows nothing.
extension SQLiteAuthStorage {
    func followedAlbums(of app: String) async throws -> [String] {
        try await database.detachedRead { db in try Self.followedAlbums(of: app, db) }
    }

    static func followedAlbums(of app: String, _ db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT album FROM selectionAlbum WHERE app = ? ORDER BY position"), arguments: [app])
    }

    /// Stores `albums` as what `app`'s selection follows, in the owner's order.
    static func replaceFollowedAlbums(of app: String, with albums: [String], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM selectionAlbum WHERE app = ?", arguments: [app])
        let insert = try db.cachedStatement(sql: "INSERT INTO selectionAlbum (app, album, position) VALUES (?, ?, ?)")
        for (position, album) in albums.enumerated() {
            try insert.execute(arguments: [app, album, position])
        }
    }
}

import Foundation
import GRDB
import LightboxProtocol

/// Limited selections that follow albums. Auth keeps which albums an app's selection follows, never
/// their members: an album's assets live in the picker's catalog, which joins them to the app's
/// albums when it reads, so the app sees what is added to an album later and loses what is taken
/// out, and no list of members travels per call or per change. An identifier that names no album
/// (one since deleted) follows nothing.
extension AuthorizationStore {
    /// The albums one update began and stopped following.
    struct AlbumChanges: Sendable, Hashable {
        var added: [String] = []
        var removed: [String] = []
    }

    /// How many albums one selection may follow.
    static let maximumAlbums = 1_000

    /// The albums an owner's request names, checked: at most `maximumAlbums`, each a plain
    /// identifier. nil stays nil (the request keeps the current albums).
    static func validatedAlbums(_ albums: [String]?) throws -> [String]? {
        guard let albums else { return nil }
        guard albums.count <= maximumAlbums else {
            throw LightboxError(.badRequest, "A limited selection may follow at most \(maximumAlbums) albums; this one names \(albums.count).")
        }
        if let bad = albums.first(where: { $0.isEmpty || $0.utf8.count > 200 || $0.contains(where: \.isNewline) }) {
            throw LightboxError(.badRequest, "albums holds \"\(bad.prefix(40))\", which is no album identifier; use those owner.outline lists.")
        }
        return albums
    }

    func followedAlbums(of app: String) async throws -> [String] {
        try await database.detachedRead { db in try Self.followedAlbums(of: app, db) }
    }

    static func followedAlbums(of app: String, _ db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT album FROM selectionAlbum WHERE app = ? ORDER BY position"), arguments: [app])
    }

    /// Stores `albums` as what `app`'s selection follows (in the owner's order) when it differs from
    /// `before`, and says what changed.
    static func replaceFollowedAlbums(of app: String, before: [String], with albums: [String], _ db: Database) throws -> AlbumChanges {
        let previous = Set(before), now = Set(albums)
        let changes = AlbumChanges(added: albums.filter { !previous.contains($0) }, removed: before.filter { !now.contains($0) })
        guard changes != AlbumChanges() || before != albums else { return changes }
        try db.execute(sql: "DELETE FROM selectionAlbum WHERE app = ?", arguments: [app])
        let insert = try db.cachedStatement(sql: "INSERT INTO selectionAlbum (app, album, position) VALUES (?, ?, ?)")
        for (position, album) in albums.enumerated() {
            try insert.execute(arguments: [app, album, position])
        }
        return changes
    }
}

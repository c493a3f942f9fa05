import Foundation

/// One change to the library as an app may see it (PHChange): assets inserted, removed or changed
/// (offloaded, restored, edited) and albums whose membership changed — only what the app may see.
/// Tokens increase with every change and persist across restarts.
public struct LibraryChange: Codable, Sendable, Hashable {
    public var token: Int64
    public var inserted: [String]
    public var removed: [String]
    public var changed: [String]
    /// Albums whose assets changed (apps with full library access only).
    public var albums: [String]
    public var at: Date

    public init(token: Int64, inserted: [String] = [], removed: [String] = [], changed: [String] = [], albums: [String] = [], at: Date) {
        self.token = token
        self.inserted = inserted
        self.removed = removed
        self.changed = changed
        self.albums = albums
        self.at = at
    }

    public var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && changed.isEmpty && albums.isEmpty }
}

/// `library.changes` (what changed after `since`) and `library.watch` (the same, then live events).
public struct LibraryChangesRequest: Codable, Sendable {
    public var since: Int64?
    public var limit: Int?
    public init(since: Int64? = nil, limit: Int? = nil) {
        self.since = since
        self.limit = limit
    }
}

public struct LibraryChangesResponse: Codable, Sendable {
    /// Only the changes the app may see, oldest first.
    public var changes: [LibraryChange]
    /// Pass as `since` next time (the newest token looked at, seen or not).
    public var token: Int64
    /// More changes follow: ask again with `token`.
    public var hasMore: Bool
    public init(changes: [LibraryChange], token: Int64, hasMore: Bool) {
        self.changes = changes
        self.token = token
        self.hasMore = hasMore
    }
}

/// `library.albums.add` / `library.albums.remove`.
public struct AlbumMembershipRequest: Codable, Sendable {
    public var album: String
    public var assets: [String]
    public init(album: String, assets: [String]) {
        self.album = album
        self.assets = assets
    }
}

/// `library.albums.assets`: an album's assets, newest first, a page at a time.
public struct AlbumAssetsRequest: Codable, Sendable {
    public var album: String
    public var limit: Int?
    public var after: String?
    public init(album: String, limit: Int? = nil, after: String? = nil) {
        self.album = album
        self.limit = limit
        self.after = after
    }
}

/// `library.delete` (the owner confirms on a user surface, as on iOS) and `owner.delete` (no prompt).
public struct DeleteAssetsRequest: Codable, Sendable {
    public var assets: [String]
    public init(assets: [String]) { self.assets = assets }
}

public struct DeleteAssetsResponse: Codable, Sendable {
    public var deleted: [String]
    public init(deleted: [String]) { self.deleted = deleted }
}

/// `auth.confirmDelete` (services only): asks the owner whether `app` may delete `assets`.
public struct DeleteConfirmationRequest: Codable, Sendable {
    public var app: String
    public var assets: [String]
    public init(app: String, assets: [String]) {
        self.app = app
        self.assets = assets
    }
}

public struct DeleteConfirmation: Codable, Sendable {
    public var allowed: Bool
    public init(allowed: Bool) { self.allowed = allowed }
}

import Foundation

/// `library.fetchAssets`: PHAsset.fetchAssets(withLocalIdentifiers:) — only what the app may see.
public struct FetchAssetsRequest: Codable, Sendable {
    public var localIdentifiers: [String]
    public init(localIdentifiers: [String]) { self.localIdentifiers = localIdentifiers }
}

/// `library.query`: a fetch by media type and date range, sorted and paged. Page with `after`
/// (the previous reply's `next`): every page then costs the same however deep it is; `offset`
/// still works but reads every row it skips.
public struct AssetQuery: Codable, Sendable, Hashable {
    public enum Sort: String, Codable, Sendable { case newestFirst, oldestFirst }

    public var mediaType: MediaType?
    /// Creation dates from `from` (inclusive) to `to` (exclusive).
    public var from: Date?
    public var to: Date?
    public var sort: Sort?
    public var offset: Int?
    public var limit: Int?
    /// The `next` cursor of the previous page (same query), instead of `offset`.
    public var after: String?

    public init(mediaType: MediaType? = nil, from: Date? = nil, to: Date? = nil, sort: Sort? = nil, offset: Int? = nil, limit: Int? = nil,
                after: String? = nil) {
        self.mediaType = mediaType
        self.from = from
        self.to = to
        self.sort = sort
        self.offset = offset
        self.limit = limit
        self.after = after
    }
}

public struct FetchAssetsResponse: Codable, Sendable, Hashable {
    public var assets: [AssetSummary]
    /// How many match in all (before paging).
    public var total: Int
    /// `library.query` only: pass as `after` for the following page; nil on the last page.
    public var next: String?
    public init(assets: [AssetSummary], total: Int, next: String? = nil) {
        self.assets = assets
        self.total = total
        self.next = next
    }
}

/// `library.create`: one binary frame with the photo or video follows the header.
public struct CreateAssetRequest: Codable, Sendable {
    public var fileName: String?
    public init(fileName: String? = nil) { self.fileName = fileName }
}

public struct CreateAssetResponse: Codable, Sendable, Hashable {
    public var identifier: String
    public init(identifier: String) { self.identifier = identifier }
}

public struct Album: Codable, Sendable, Hashable {
    public var identifier: String
    public var title: String
    public var createdAt: Date
    /// How many assets it holds (PHAssetCollection's estimatedAssetCount), where a listing counts them.
    public var assetCount: Int?
    public init(identifier: String, title: String, createdAt: Date, assetCount: Int? = nil) {
        self.identifier = identifier
        self.title = title
        self.createdAt = createdAt
        self.assetCount = assetCount
    }
}

public struct AlbumsResponse: Codable, Sendable {
    public var albums: [Album]
    public init(albums: [Album]) { self.albums = albums }
}

public struct CreateAlbumRequest: Codable, Sendable {
    public var title: String
    public init(title: String) { self.title = title }
}

public struct AlbumResponse: Codable, Sendable {
    public var album: Album
    public init(album: Album) { self.album = album }
}

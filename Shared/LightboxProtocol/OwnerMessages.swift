import Foundation

/// `owner.pending`: the picks waiting for the owner. With `waitMs` > 0 the reply waits up to that
/// long for one to arrive (a long poll, so a scripted owner needs no busy loop).
public struct PendingPicksRequest: Codable, Sendable {
    public var waitMs: Int?
    public init(waitMs: Int? = nil) { self.waitMs = waitMs }
}

public struct PendingPick: Codable, Sendable, Hashable {
    public var pick: String
    public var app: String
    public var appName: String?
    public var configuration: PickerConfiguration
    public var createdAt: Date

    public init(pick: String, app: String, appName: String?, configuration: PickerConfiguration, createdAt: Date) {
        self.pick = pick
        self.app = app
        self.appName = appName
        self.configuration = configuration
        self.createdAt = createdAt
    }
}

public struct PendingPicksResponse: Codable, Sendable {
    public var picks: [PendingPick]
    public init(picks: [PendingPick]) { self.picks = picks }
}

/// `owner.assets`: one page of the catalog as the owner's surface shows it, newest first (keyset
/// paging by creation date and identifier). With `pick`, only what that pick's filter lets through;
/// with `filter`, only what that filter lets through. Never the whole library in one reply: pass
/// the reply's `next` as `after` for the following page.
public struct ListAssetsRequest: Codable, Sendable {
    /// Largest page the picker sends, whatever `limit` asks.
    public static let maximumLimit = 500
    public static let defaultLimit = 100

    public var pick: String?
    public var filter: PickerFilter?
    /// Page size (1…500, default 100).
    public var limit: Int?
    /// The `next` cursor of the previous page; nil for the first page.
    public var after: String?
    /// What the owner typed in the search box: a date ("2024", "March 2024", "2024年3月"), kinds
    /// ("screenshots", "live"), a place ("Lisbon"), a camera or part of a file name.
    public var search: String?
    /// Only this album's assets.
    public var album: String?
    /// Only assets made before this moment (where "jump to year" starts the grid).
    public var before: Date?
    /// The owner's IANA time zone, in which the search's dates are days (default: the picker's).
    public var timeZone: String?

    public init(pick: String? = nil, filter: PickerFilter? = nil, limit: Int? = nil, after: String? = nil, search: String? = nil,
                album: String? = nil, before: Date? = nil, timeZone: String? = nil) {
        self.pick = pick
        self.filter = filter
        self.limit = limit
        self.after = after
        self.search = search
        self.album = album
        self.before = before
        self.timeZone = timeZone
    }
}

/// `owner.outline`: what the pick sheet offers to browse by: the library's albums, the dates of
/// its newest and oldest assets (the years to jump to), and whether the picker names places
/// (false without its place table: search then finds no places).
public struct LibraryOutline: Codable, Sendable, Hashable {
    public var albums: [Album]
    public var newest: Date?
    public var oldest: Date?
    public var placeSearch: Bool

    public init(albums: [Album], newest: Date?, oldest: Date?, placeSearch: Bool) {
        self.albums = albums
        self.newest = newest
        self.oldest = oldest
        self.placeSearch = placeSearch
    }
}

public struct AssetSummary: Codable, Sendable, Hashable {
    public var identifier: String
    public var fileName: String
    public var type: UTType
    public var mediaType: MediaType
    public var subtypes: [MediaSubtype]
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var duration: Double?
    public var fileSize: Int64
    public var creationDate: Date
    /// The original lives in the cloud tier.
    public var isInCloud: Bool
    /// Why the pick whose page this is cannot take it (its `SelectionLimits`); nil when it can,
    /// and outside `owner.assets` of a pick with limits.
    public var unavailable: SelectionMisfit?

    public init(identifier: String, fileName: String, type: UTType, mediaType: MediaType, subtypes: [MediaSubtype],
                pixelWidth: Int?, pixelHeight: Int?, duration: Double?, fileSize: Int64, creationDate: Date, isInCloud: Bool = false,
                unavailable: SelectionMisfit? = nil) {
        self.identifier = identifier
        self.fileName = fileName
        self.type = type
        self.mediaType = mediaType
        self.subtypes = subtypes
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.duration = duration
        self.fileSize = fileSize
        self.creationDate = creationDate
        self.isInCloud = isInCloud
        self.unavailable = unavailable
    }
}

public struct ListAssetsResponse: Codable, Sendable, Hashable {
    public var assets: [AssetSummary]
    /// The cursor of the following page; nil on the last page.
    public var next: String?
    public init(assets: [AssetSummary], next: String? = nil) {
        self.assets = assets
        self.next = next
    }
}

/// `owner.thumbnail`: a cached JPEG thumbnail of any asset, at most `side` pixels on its longer side
/// (default 256, at most 1024). The `ok` reply carries `ThumbnailInfo` and one binary frame, the JPEG.
public struct ThumbnailRequest: Codable, Sendable {
    public static let defaultSide = 256
    public static let maximumSide = 1024

    public var asset: String
    public var side: Int?
    public init(asset: String, side: Int? = nil) {
        self.asset = asset
        self.side = side
    }
}

public struct ThumbnailInfo: Codable, Sendable, Hashable {
    public var asset: String
    public var type: UTType
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// Changes whenever the pixels can change: a validator for HTTP caching.
    public var etag: String
    public init(asset: String, type: UTType, pixelWidth: Int?, pixelHeight: Int?, etag: String) {
        self.asset = asset
        self.type = type
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.etag = etag
    }
}

/// `owner.asset` (body: `AssetRequest`): one asset's details for the owner: its summary and the
/// image properties read at import (EXIF camera, GPS, …).
public struct AssetDetails: Codable, Sendable {
    public var summary: AssetSummary
    public var importedAt: Date
    public var properties: [String: JSONValue]
    /// The app's edit that is the current version, if any (the summary and properties describe the original).
    public var edit: OwnerAssetEdit?
    public init(summary: AssetSummary, importedAt: Date, properties: [String: JSONValue], edit: OwnerAssetEdit? = nil) {
        self.summary = summary
        self.importedAt = importedAt
        self.properties = properties
        self.edit = edit
    }
}

/// `owner.choose`: completes a pick with these assets, in this order.
public struct ChooseRequest: Codable, Sendable {
    public var pick: String
    public var assets: [String]
    /// The owner's choice of metadata to remove (at least what the app's configuration asks).
    public var stripMetadata: MetadataStripping?
    /// The owner's answer to the pick's location request (never more than it asked); absent: none.
    public var location: LocationAccess?
    public init(pick: String, assets: [String], stripMetadata: MetadataStripping? = nil, location: LocationAccess? = nil) {
        self.pick = pick
        self.assets = assets
        self.stripMetadata = stripMetadata
        self.location = location
    }
}

public struct ChooseResponse: Codable, Sendable {
    public var delivered: Int
    public init(delivered: Int) { self.delivered = delivered }
}

/// `owner.cancel`: the owner dismissed the picker; the app gets empty results.
public struct CancelPickRequest: Codable, Sendable {
    public var pick: String
    public init(pick: String) { self.pick = pick }
}

/// `owner.revoke`: revoke one token, or every token of one app.
public struct RevokeRequest: Codable, Sendable {
    public var token: String?
    public var app: String?
    public init(token: String? = nil, app: String? = nil) {
        self.token = token
        self.app = app
    }
}

public struct RevokeResponse: Codable, Sendable {
    public var revoked: Int
    public init(revoked: Int) { self.revoked = revoked }
}

/// `owner.import`: import a folder of media into the catalog. `progress` replies carry
/// `ImportProgress`; the final `ok` an `ImportSummary`.
public struct ImportRequest: Codable, Sendable {
    public var path: String
    public init(path: String) { self.path = path }
}

public struct ImportProgress: Codable, Sendable {
    public var completed: Int
    public var total: Int
    public var file: String
    public init(completed: Int, total: Int, file: String) {
        self.completed = completed
        self.total = total
        self.file = file
    }
}

public struct ImportFailure: Codable, Sendable, Hashable {
    public var file: String
    public var code: ErrorCode
    public var message: String
    public init(file: String, code: ErrorCode, message: String) {
        self.file = file
        self.code = code
        self.message = message
    }
}

public struct ImportSummary: Codable, Sendable {
    /// New assets.
    public var imported: [String]
    /// Files already in the catalog (same content): their identifiers are unchanged.
    public var unchanged: [String]
    public var failed: [ImportFailure]

    public init(imported: [String], unchanged: [String], failed: [ImportFailure]) {
        self.imported = imported
        self.unchanged = unchanged
        self.failed = failed
    }
}

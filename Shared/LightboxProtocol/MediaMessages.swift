import Foundation

/// What to remove from delivered images: nothing, the location, or all metadata.
public enum MetadataStripping: String, Codable, Sendable, CaseIterable, Comparable {
    case none, location, all

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// PHImageContentMode.
public enum ImageContentMode: String, Codable, Sendable {
    case fit, fill
}

/// PHImageRequestOptionsDeliveryMode.
public enum ImageDeliveryMode: String, Codable, Sendable {
    /// A degraded image first (flagged), then the final one.
    case opportunistic
    /// Exactly one result, at the requested quality.
    case highQualityFormat
    /// One fast result.
    case fastFormat
}

/// PHImageRequestOptionsVersion. Lightbox keeps no edits yet, so both give the original's pixels.
public enum ImageVersion: String, Codable, Sendable {
    case current, original
}

/// `image.request`: PHImageManager.requestImage for an asset the app may see.
public struct ImageRequest: Codable, Sendable {
    public var asset: String
    /// Pixels; leave both out for the full size (PHImageManagerMaximumSize).
    public var targetWidth: Int?
    public var targetHeight: Int?
    public var contentMode: ImageContentMode?
    public var deliveryMode: ImageDeliveryMode?
    public var version: ImageVersion?
    public var isNetworkAccessAllowed: Bool?

    public init(asset: String, targetWidth: Int? = nil, targetHeight: Int? = nil, contentMode: ImageContentMode? = nil,
                deliveryMode: ImageDeliveryMode? = nil, version: ImageVersion? = nil, isNetworkAccessAllowed: Bool? = nil) {
        self.asset = asset
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.contentMode = contentMode
        self.deliveryMode = deliveryMode
        self.version = version
        self.isNetworkAccessAllowed = isNetworkAccessAllowed
    }
}

/// The info of one image result (PHImageResultIsDegradedKey, …). An `event` reply carries a degraded
/// result, the final `ok` the last one; a result with an image has one binary frame after the header.
public struct ImageResultInfo: Codable, Sendable, Hashable {
    public var isDegraded: Bool
    /// The original is in the cloud tier and network access was not allowed: no image, no error.
    public var isInCloud: Bool
    public var isCancelled: Bool
    public var type: UTType?
    public var pixelWidth: Int?
    public var pixelHeight: Int?

    public init(isDegraded: Bool = false, isInCloud: Bool = false, isCancelled: Bool = false, type: UTType? = nil,
                pixelWidth: Int? = nil, pixelHeight: Int? = nil) {
        self.isDegraded = isDegraded
        self.isInCloud = isInCloud
        self.isCancelled = isCancelled
        self.type = type
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }
}

/// `image.cancel`: cancels a running `image.request` (by its request id); it ends with `isCancelled`.
public struct CancelImageRequest: Codable, Sendable {
    public var request: String
    public init(request: String) { self.request = request }
}

/// PHVideoRequestOptionsDeliveryMode.
public enum VideoDeliveryMode: String, Codable, Sendable {
    case automatic, fastFormat, mediumQualityFormat, highQualityFormat
}

/// `video.request`: the movie as a file the app owns, streamed like `provider.load`.
public struct VideoRequest: Codable, Sendable {
    public var asset: String
    public var deliveryMode: VideoDeliveryMode?
    public var isNetworkAccessAllowed: Bool?
    public var credit: Int?
    public var chunkSize: Int?
    /// The edited version (`current`, the default) or the original (PHVideoRequestOptionsVersion).
    public var version: ImageVersion?

    public init(asset: String, deliveryMode: VideoDeliveryMode? = nil, isNetworkAccessAllowed: Bool? = nil,
                credit: Int? = nil, chunkSize: Int? = nil, version: ImageVersion? = nil) {
        self.asset = asset
        self.deliveryMode = deliveryMode
        self.isNetworkAccessAllowed = isNetworkAccessAllowed
        self.credit = credit
        self.chunkSize = chunkSize
        self.version = version
    }
}

/// The first `event` of a video request: which derivative is coming (or that the original is in the cloud).
public struct VideoResultInfo: Codable, Sendable, Hashable {
    public var isInCloud: Bool
    /// `fast` (an H.264/AAC MP4 whose shorter side is at most 360 pixels), `medium` (at most 720)
    /// or `original` (highQualityFormat and automatic).
    public var deliveredQuality: String?
    /// The type of the file that follows.
    public var type: UTType?
    public init(isInCloud: Bool, deliveredQuality: String?, type: UTType? = nil) {
        self.isInCloud = isInCloud
        self.deliveredQuality = deliveredQuality
        self.type = type
    }
}

/// Download progress from the cloud tier, as `progress` replies.
public struct DownloadProgress: Codable, Sendable, Hashable {
    public var event: String
    public var completed: Int64
    public var total: Int64
    public init(completed: Int64, total: Int64) {
        event = "download"
        self.completed = completed
        self.total = total
    }
}

/// `owner.offload` / `owner.restore`: move an asset's original to the cloud tier, or back.
public struct AssetRequest: Codable, Sendable {
    public var asset: String
    public init(asset: String) { self.asset = asset }
}

/// `library.properties`: an asset's image properties, as CGImageSourceCopyPropertiesAtIndex gives them.
public struct ImagePropertiesResponse: Codable, Sendable, Hashable {
    public var asset: String
    public var properties: [String: JSONValue]
    public init(asset: String, properties: [String: JSONValue]) {
        self.asset = asset
        self.properties = properties
    }
}

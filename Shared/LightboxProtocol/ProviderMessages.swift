import Foundation

public struct TokenRequest: Codable, Sendable {
    public var token: String
    public init(token: String) { self.token = token }
}

/// `provider.describe`: the types and image properties behind a token (no bytes).
public struct ProviderDescription: Codable, Sendable, Hashable {
    public var registeredTypeIdentifiers: [UTType]
    public var suggestedName: String?
    public var fileSize: Int64
    public var properties: ImageProperties
    /// The full property dictionary, shaped like CGImageSourceCopyPropertiesAtIndex ({Exif}, {GPS}, …),
    /// after any metadata stripping the pick asked for.
    public var imageProperties: [String: JSONValue]?

    public init(registeredTypeIdentifiers: [UTType], suggestedName: String?, fileSize: Int64, properties: ImageProperties,
                imageProperties: [String: JSONValue]? = nil) {
        self.registeredTypeIdentifiers = registeredTypeIdentifiers
        self.suggestedName = suggestedName
        self.fileSize = fileSize
        self.properties = properties
        self.imageProperties = imageProperties
    }
}

/// The subset of CGImageSource properties the catalog knows; keys follow ImageIO's names.
public struct ImageProperties: Codable, Sendable, Hashable {
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var isAnimated: Bool?
    public var frameCount: Int?
    public var duration: Double?
    public var creationDate: Date?

    public init(pixelWidth: Int? = nil, pixelHeight: Int? = nil, isAnimated: Bool? = nil, frameCount: Int? = nil,
                duration: Double? = nil, creationDate: Date? = nil) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.isAnimated = isAnimated
        self.frameCount = frameCount
        self.duration = duration
        self.creationDate = creationDate
    }

    enum CodingKeys: String, CodingKey {
        case pixelWidth = "PixelWidth", pixelHeight = "PixelHeight", isAnimated = "IsAnimated"
        case frameCount = "FrameCount", duration = "Duration", creationDate = "CreationDate"
    }
}

/// `provider.load`: stream the bytes of one representation.
public struct LoadRequest: Codable, Sendable {
    /// Chunks the client lets the service send ahead before it grants more.
    public static let defaultCredit = 8
    public static let defaultChunkSize = 256 * 1024
    public static let maximumChunkSize = 4 * 1024 * 1024

    public var token: String
    /// The type to load as; it must be registered or a supertype of one (default: the first registered).
    public var type: UTType?
    public var credit: Int?
    public var chunkSize: Int?

    public init(token: String, type: UTType? = nil, credit: Int? = nil, chunkSize: Int? = nil) {
        self.token = token
        self.type = type
        self.credit = credit
        self.chunkSize = chunkSize
    }
}

/// The JSON header of a `chunk` reply; one binary frame with `length` bytes follows it.
public struct ChunkHeader: Codable, Sendable, Hashable {
    public var offset: Int64
    public var length: Int
    /// Bytes delivered so far, this chunk included, and the size of the whole: the load's progress.
    public var completed: Int64
    public var total: Int64

    public init(offset: Int64, length: Int, completed: Int64, total: Int64) {
        self.offset = offset
        self.length = length
        self.completed = completed
        self.total = total
    }
}

/// `stream.credit`: lets a running stream send `credit` more chunks. No reply.
public struct StreamCredit: Codable, Sendable {
    /// The id of the request that started the stream.
    public var stream: String
    public var credit: Int
    public init(stream: String, credit: Int) {
        self.stream = stream
        self.credit = credit
    }
}

/// `stream.cancel`: ends a running stream; its request ends with `cancelled`.
public struct StreamCancel: Codable, Sendable {
    public var stream: String
    public init(stream: String) { self.stream = stream }
}

/// The final `ok` body of a stream: what was sent, with a digest the client checks.
public struct StreamCompletion: Codable, Sendable, Hashable {
    public var bytes: Int64
    public var sha256: String
    public var type: UTType?
    public var suggestedName: String?

    public init(bytes: Int64, sha256: String, type: UTType?, suggestedName: String?) {
        self.bytes = bytes
        self.sha256 = sha256
        self.type = type
        self.suggestedName = suggestedName
    }
}

import Foundation

/// `owner.media`: a byte range of what the owner's preview plays or animates. The `ok` reply carries
/// `MediaRangeInfo` and one binary frame, the bytes (none when `length` is 0, to learn the size).
public struct MediaRangeRequest: Codable, Sendable {
    /// The most bytes one request returns; a longer range is asked for in several requests.
    public static let maximumLength = 1 << 20

    public var asset: String
    public var part: MediaRangePart
    public var offset: Int64?
    /// At most `maximumLength`; the reply stops at the end of the file.
    public var length: Int?
    public init(asset: String, part: MediaRangePart, offset: Int64? = nil, length: Int? = nil) {
        self.asset = asset
        self.part = part
        self.offset = offset
        self.length = length
    }
}

/// Which file of an asset a preview reads.
public enum MediaRangePart: String, Codable, Sendable, CaseIterable {
    /// A movie any browser plays: the H.264 rendition (shorter side at most 720 pixels) of a video,
    /// or of a Live Photo's movie.
    case movie
    /// The original as stored (an animated GIF or WebP animates from it).
    case original
}

public struct MediaRangeInfo: Codable, Sendable, Hashable {
    public var asset: String
    public var type: UTType
    /// The whole file's size.
    public var totalBytes: Int64
    public var offset: Int64
    /// The bytes in the reply's frame.
    public var length: Int
    public init(asset: String, type: UTType, totalBytes: Int64, offset: Int64, length: Int) {
        self.asset = asset
        self.type = type
        self.totalBytes = totalBytes
        self.offset = offset
        self.length = length
    }
}

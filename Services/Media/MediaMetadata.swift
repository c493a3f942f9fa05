import Foundation
import LightboxProtocol

/// What the catalog learns from a file: its type, pixel size (from the image data itself),
/// animation, duration and capture date.
public struct MediaMetadata: Sendable, Hashable {
    public var type: UTType
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var isAnimated = false
    public var frameCount: Int?
    /// Seconds, for movies and animations.
    public var duration: Double?
    /// When it was taken (EXIF DateTimeOriginal, read as UTC; or a movie's creation time).
    public var creationDate: Date?

    public init(type: UTType) {
        self.type = type
    }

    public var mediaType: MediaType { type.isMovie ? .video : .image }

    public var subtypes: Set<MediaSubtype> { isAnimated && mediaType == .image ? [.animated] : [] }
}

/// Reads `MediaMetadata` from any file Lightbox can import.
public enum MetadataReader {
    public static func read(fileAt url: URL) throws -> MediaMetadata {
        let file = try FileBytes(url)
        guard file.size > 0 else { throw MediaError(.malformed, "\(url.lastPathComponent) is empty") }
        guard let type = ContentSniffer.sniff(try file.read(at: 0, count: ContentSniffer.headerLength)) else {
            throw MediaError(.unsupportedFormat, "\(url.lastPathComponent) is not JPEG, PNG, HEIC, WebP, GIF, MP4 or MOV")
        }
        switch type {
        case .jpeg: return try JPEGReader.read(file)
        case .png: return try PNGReader.read(file)
        case .gif: return try GIFReader.read(file)
        case .webP: return try WebPReader.read(file)
        default: return try ISOMediaReader.read(file, type: type)
        }
    }
}

import Foundation
import LightboxProtocol

/// What the catalog learns from a file without decoding its pixels: its type, pixel size (from the
/// image data itself, never only from EXIF), animation, duration, capture date, and the camera,
/// location and movie facts an app sees through `imageProperties`.
///
/// Every field past `type` is optional or defaults to "not there": a reader fills what its format
/// carries, and a file that lacks a fact leaves it empty rather than guessing.
public struct MediaMetadata: Sendable, Hashable {
    public var type: UTType
    /// As stored, before `orientation` or `rotation` are applied (as ImageIO reports it).
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var isAnimated = false
    /// 1 for a still image, an animation's frames, a movie's video frames (when its header says).
    public var frameCount: Int?
    /// Seconds, for movies and animations.
    public var duration: Double?
    /// When it was taken: EXIF DateTimeOriginal (else DateTime), read as UTC unless
    /// OffsetTimeOriginal gives the zone; for a movie, QuickTime's creationdate, else creation_time.
    public var creationDate: Date?

    // MARK: Image

    /// EXIF orientation, 1–8 (1: as stored, 6: turn 90° clockwise to show). Empty when the file says
    /// nothing, which means 1.
    public var orientation: Int?
    /// Whether the pixels carry transparency (an alpha channel, a PNG tRNS chunk, a GIF transparent
    /// colour). Empty for movies.
    public var hasAlpha: Bool?
    /// WebP: whether every frame is VP8L (lossless). Empty for other formats.
    public var isLossless: Bool?
    /// Animations: how often the animation plays again; 0 means forever. Empty when the file does
    /// not say, which means it plays once.
    public var loopCount: Int?
    /// Animations: how long the first frame shows, in seconds (ImageIO's DelayTime at index 0).
    public var firstFrameDelay: Double?
    /// How the pixels are stored: `RGB`, `Gray`, `CMYK` or `Lab`, as ImageIO's ColorModel.
    public var colorModel: String?
    /// Bits per sample (ImageIO's Depth): 8 for most photos, 16 for deep PNGs.
    public var depth: Int?
    /// Pixels per inch, from JFIF, PNG pHYs or EXIF XResolution/YResolution.
    public var dpiWidth: Double?
    public var dpiHeight: Double?
    /// The embedded ICC profile's description (ImageIO's ProfileName), e.g. `Display P3`.
    public var profileName: String?

    // MARK: Camera (EXIF, or a movie's QuickTime metadata)

    public var cameraMake: String?
    public var cameraModel: String?
    /// EXIF DateTimeOriginal exactly as written, e.g. `2024:06:01 12:30:45` (no zone).
    public var dateTimeOriginal: String?
    /// EXIF DateTimeDigitized as written.
    public var dateTimeDigitized: String?
    /// EXIF OffsetTime, OffsetTimeOriginal, OffsetTimeDigitized as written, e.g. `+02:00`.
    public var offsetTime: String?
    public var offsetTimeOriginal: String?
    public var offsetTimeDigitized: String?
    /// Seconds.
    public var exposureTime: Double?
    public var fNumber: Double?
    /// EXIF ISOSpeedRatings (the first value).
    public var isoSpeed: Int?
    /// Apple's Live Photo content identifier: the still's MakerNote ContentIdentifier, the movie's
    /// `com.apple.quicktime.content.identifier`. A still and a movie that share one are one Live Photo.
    public var contentIdentifier: String?
    /// Where it was taken.
    public var location: GeoLocation?
    /// Whether the file carries an EXIF block (even one Lightbox could not use) or XMP.
    public var hasEXIF = false
    public var hasXMP = false

    // MARK: Movie

    /// The video track's codec, by FFmpeg's short name (`h264`, `hevc`, `mpeg4`…).
    public var codec: String?
    /// Degrees clockwise (0, 90, 180 or 270) to turn the stored frames for display.
    public var rotation: Int?

    public init(type: UTType) {
        self.type = type
    }

    public var mediaType: MediaType { type.isMovie ? .video : .image }

    public var subtypes: Set<MediaSubtype> { isAnimated && mediaType == .image ? [.animated] : [] }
}

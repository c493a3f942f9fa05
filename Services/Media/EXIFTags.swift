import Foundation

/// The EXIF tags Lightbox reports, as read from one EXIF block (see `EXIFReader`).
struct EXIFTags: Hashable {
    var make: String?
    var model: String?
    /// IFD0 DateTime: when the file was last written, the capture date's stand-in when
    /// DateTimeOriginal is missing.
    var dateTime: String?
    var dateTimeOriginal: String?
    var offsetTimeOriginal: String?
    var dateTimeDigitized: String?
    var offsetTime: String?
    var offsetTimeDigitized: String?
    /// XResolution and YResolution converted to pixels per inch (ResolutionUnit 2 inch, 3 cm).
    var dpiWidth: Double?
    var dpiHeight: Double?
    /// Apple's MakerNote ContentIdentifier: the same in a Live Photo's still and its movie.
    var contentIdentifier: String?
    var orientation: Int?
    var exposureTime: Double?
    var fNumber: Double?
    var isoSpeed: Int?
    var location: GeoLocation?
}

extension MediaMetadata {
    /// Takes what an EXIF block says. The pixel size is never taken from EXIF: editors rewrite images
    /// without updating it, so it comes from the image data.
    mutating func apply(_ tags: EXIFTags) {
        hasEXIF = true
        cameraMake = tags.make ?? cameraMake
        cameraModel = tags.model ?? cameraModel
        dateTimeOriginal = tags.dateTimeOriginal ?? dateTimeOriginal
        orientation = tags.orientation ?? orientation
        dateTimeDigitized = tags.dateTimeDigitized ?? dateTimeDigitized
        offsetTime = tags.offsetTime ?? offsetTime
        offsetTimeOriginal = tags.offsetTimeOriginal ?? offsetTimeOriginal
        offsetTimeDigitized = tags.offsetTimeDigitized ?? offsetTimeDigitized
        // A container's own density (JFIF, pHYs) wins, as in ImageIO; EXIF fills in.
        dpiWidth = dpiWidth ?? tags.dpiWidth
        dpiHeight = dpiHeight ?? tags.dpiHeight
        contentIdentifier = tags.contentIdentifier ?? contentIdentifier
        exposureTime = tags.exposureTime ?? exposureTime
        fNumber = tags.fNumber ?? fNumber
        isoSpeed = tags.isoSpeed ?? isoSpeed
        location = tags.location ?? location
        let captured = tags.dateTimeOriginal.flatMap { MediaTimestamp.exif($0, offset: tags.offsetTimeOriginal) }
        creationDate = captured ?? tags.dateTime.flatMap { MediaTimestamp.exif($0) } ?? creationDate
    }
}

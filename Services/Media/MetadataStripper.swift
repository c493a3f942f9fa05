import Foundation
import LightboxProtocol

/// Writes a copy of an image without its location, or without any metadata, for apps that were
/// not given it. The pixels are not decoded or re-encoded: each format's container is rewritten
/// and its compressed image data copied byte for byte (JPEG, PNG, WebP, GIF, HEIC; see the stripper of
/// each for exactly what goes and what stays).
///
/// - `.location` removes the GPS IFD from EXIF, and drops XMP packets whole rather than editing
///   them (XMP can say where a photo was taken in many properties: exif:GPS*, Iptc4xmpCore
///   Location, photoshop:City…). Camera, date and the rest of EXIF stay.
/// - `.approximateLocation` is `.location` with the position on the approximate grid: EXIF's GPS
///   IFD replaced by one holding only that (`EXIFLocationApproximator`), and an XMP packet that
///   gives a position replaced by one holding only that position, snapped (`XMPLocation`)
///   (`strip(removing:…)`); a GIF, which has no EXIF, loses its location as for `.location`.
/// - `.all` removes EXIF, XMP, IPTC, comments and text chunks. ICC profiles stay, and so does the
///   orientation: an image not stored upright keeps an EXIF block with that one tag, so it shows
///   the same without its pixels being turned.
/// - `.none` copies the file as it is.
///
/// HEIC keeps every byte where it was (its boxes' offsets point at the image data): its Exif and
/// XMP items are overwritten in place with content of the same length (`HEIFMetadataStripper`).
/// Movies are refused here: `MovieMetadataStripper` remuxes them (asynchronously, through ffmpeg).
///
/// The copy is read back before it is kept: its type and pixel size must match the original and
/// the metadata that was to go must be gone, else nothing is written. The destination is written
/// through a temporary file beside it and renamed, so it is whole or absent.
public enum MetadataStripper {
    /// Throws only `MediaError` (untyped for the reason given on `MetadataReader.read(fileAt:)`).
    public static func strip(_ what: MetadataStripping, from url: URL, to destination: URL) throws {
        try stripTyped(MetadataRemoval(what), from: url, to: destination)
    }

    /// As `strip(_:from:to:)`, for any removal (an approximate location included).
    public static func strip(removing what: MetadataRemoval, from url: URL, to destination: URL) throws {
        try stripTyped(what, from: url, to: destination)
    }

    /// Whether files of `type` are stripped here, keeping their format (JPEG, PNG, WebP, GIF,
    /// HEIC), not refused (movies).
    public static func rewritesInPlace(_ type: UTType) -> Bool {
        [UTType.jpeg, .png, .webP, .gif, .heic].contains(type)
    }

    static func stripTyped(_ what: MetadataRemoval, from url: URL, to destination: URL) throws(MediaError) {
        let name = url.lastPathComponent
        let original = try MetadataReader.read(FileBytes(url))
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw MediaError(.unreadable, "Cannot read \(name): \(error.localizedDescription)")
        }
        let stripped: Data
        switch (what, original.type) {
        case (.none, _): stripped = bytes
        case (_, .jpeg): stripped = try JPEGMetadataStripper.strip(what, bytes, orientation: original.orientation, name: name)
        case (_, .png): stripped = try PNGMetadataStripper.strip(what, bytes, orientation: original.orientation, name: name)
        case (_, .webP): stripped = try WebPMetadataStripper.strip(what, bytes, orientation: original.orientation, name: name)
        case (_, .gif): stripped = try GIFMetadataStripper.strip(what, bytes, name: name)
        case (_, .heic): stripped = try HEIFMetadataStripper.strip(what, bytes, from: url, name: name)
        default:
            throw MediaError(.unsupportedFormat, "Remove metadata from movies such as \(name) with MovieMetadataStripper")
        }
        try AtomicFileWriter.write(to: destination) { (temporary) throws(MediaError) in
            do {
                try stripped.write(to: temporary)
            } catch {
                throw MediaError(.unwritable, "Cannot write \(destination.lastPathComponent): \(error.localizedDescription)")
            }
            try verify(temporary, against: original, what, name: name)
        }
    }

    /// Reads the copy back: the same image, and none of what was to go.
    static func verify(_ copy: URL, against original: MediaMetadata, _ what: MetadataRemoval, name: String) throws(MediaError) {
        let result: MediaMetadata
        do throws(MediaError) {
            result = try MetadataReader.read(FileBytes(copy))
        } catch {
            throw MediaError(.malformed, "Removing metadata from \(name) left a file that does not read back (\(error.message)); it was not written")
        }
        guard result.type == original.type, result.pixelWidth == original.pixelWidth, result.pixelHeight == original.pixelHeight,
              result.frameCount == original.frameCount else {
            throw MediaError(.malformed, "Removing metadata from \(name) changed the image; the copy was not written")
        }
        var leftovers: [String] = []
        if what != .none {
            if let location = result.location, !MetadataRemoval.isApproximation(location, of: original.location, what) {
                leftovers.append("its location")
            }
            if result.type == .heic {
                // A HEIC keeps its XMP items, each emptied (or holding the approximate position) in place.
                let items = try? HEIFReader.metadataItems(fileAt: copy)
                if items?.xmp.allSatisfy({ XMPLocation.isReplacement($0, for: what) }) != true { leftovers.append("XMP") }
            } else if result.hasXMP, what != .approximateLocation {
                leftovers.append("XMP")  // with an approximate location, the XMP left holds only that (checked above)
            }
        }
        if what == .all, result.cameraMake != nil || result.cameraModel != nil || result.dateTimeOriginal != nil || result.creationDate != nil {
            leftovers.append("EXIF")
        }
        guard leftovers.isEmpty else {
            throw MediaError(.malformed, "Lightbox could not remove \(leftovers.joined(separator: " and ")) from \(name); the copy was not written")
        }
        guard (result.orientation ?? 1) == (original.orientation ?? 1) else {
            throw MediaError(.malformed, "Removing metadata from \(name) lost its orientation; the copy was not written")
        }
    }
}

import CHeif
import Foundation
import LightboxProtocol

/// Removes metadata from a HEIC without moving a byte: the offsets of its boxes (`iloc`) point at
/// the image data, so nothing may grow or shrink. Each metadata item is found in the file (libheif
/// gives its content; the file must hold it once, in one piece) and overwritten with content of the
/// same length:
///
/// - the Exif item loses its GPS IFD (`EXIFLocationRemover`), or with `.approximateLocation` has
///   it edited where it is (`EXIFLocationApproximator`, without growing); with `.all`, it becomes
///   an empty TIFF structure padded with zeros (a HEIC's orientation is in its `irot` and `imir`
///   boxes, which stay);
/// - each XMP item becomes an empty packet padded with spaces, or with `.approximateLocation` one
///   holding only its position on the grid (`XMPLocation`).
///
/// Everything else — the image items, their properties (`ispe`, `colr`, `irot`…), thumbnails,
/// depth and gain maps — is the same bytes, so the image decodes exactly as before.
enum HEIFMetadataStripper {
    static func strip(_ what: MetadataRemoval, _ bytes: Data, from url: URL, name: String) throws(MediaError) -> Data {
        var output = bytes
        let items = try HEIFReader.metadataItems(fileAt: url)
        for item in items.exif {
            try overwrite(item, with: exifItem(item, what), in: &output, name: name)
        }
        for item in items.xmp {
            let position = XMPLocation.approximatePosition(in: item, what)
            guard let replacement = XMPLocation.replacementPacket(holding: position, paddedTo: item.count)
                    ?? XMPLocation.replacementPacket(holding: nil, paddedTo: item.count) else {
                throw MediaError(.unsupportedFormat, "\(name) has an XMP item too short to be emptied in place (\(item.count) bytes); Lightbox cannot deliver it without its metadata (ask for the compatible JPEG instead)")
            }
            try overwrite(item, with: replacement, in: &output, name: name)
        }
        return output
    }

    /// The Exif item (a 4-byte offset to its TIFF header, then the TIFF data) as `what` leaves it,
    /// the same length.
    static func exifItem(_ item: Data, _ what: MetadataRemoval) -> Data {
        guard item.count > 4, case let start = 4 + Int(item.uint32BE(at: 0)), start < item.count else { return Data(count: item.count) }
        let prefix = item.prefix(start)
        let tiff = item.dropFirst(start)
        let cleaned = what == .all ? nil : EXIFLocationRemover.location(removedFrom: Data(tiff), what, maximumSize: tiff.count)
        if let cleaned, cleaned.count == tiff.count { return prefix + cleaned }
        // Nothing left to keep (or EXIF that cannot be followed): an empty TIFF structure, IFD 0
        // without entries, the rest zeros.
        let empty = Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0])
        guard empty.count <= tiff.count else { return Data(count: item.count) }
        return prefix + empty + Data(count: tiff.count - empty.count)
    }

    /// Puts `replacement` where `item` is in `bytes`: the one place the file holds it.
    static func overwrite(_ item: Data, with replacement: Data, in bytes: inout Data, name: String) throws(MediaError) {
        precondition(replacement.count == item.count, "a HEIC's metadata is replaced by content of the same length")
        guard !item.isEmpty, item != replacement else { return }
        guard let found = bytes.range(of: item),
              bytes.range(of: item, in: found.upperBound..<bytes.endIndex) == nil else {
            throw MediaError(.unsupportedFormat, "\(name) stores its metadata in pieces (or more than once), which Lightbox cannot remove in place; ask for the compatible JPEG instead")
        }
        bytes.replaceSubrange(found, with: replacement)
    }
}

extension HEIFReader {
    /// The contents of the primary image's Exif items and XMP (`mime` application/rdf+xml) items,
    /// each at most `maximumEXIFSize` bytes (a larger one is refused).
    static func metadataItems(fileAt url: URL) throws(MediaError) -> (exif: [Data], xmp: [Data]) {
        let name = url.lastPathComponent
        _ = initialized
        guard let context = heif_context_alloc() else {
            throw MediaError(.unreadable, "Cannot read \(name): libheif could not allocate a context")
        }
        defer { heif_context_free(context) }
        var primary: OpaquePointer?
        let opened = heif_context_read_from_file(context, url.path, nil)
        guard opened.code == heif_error_Ok, heif_context_get_primary_image_handle(context, &primary).code == heif_error_Ok,
              let handle = primary else {
            throw MediaError(.malformed, "\(name) is not a readable HEIF file: \(String(cString: opened.message))")
        }
        defer { heif_image_handle_release(handle) }
        func contents(_ identifiers: [heif_item_id]) throws(MediaError) -> [Data] {
            var result: [Data] = []
            for identifier in identifiers {
                let size = heif_image_handle_get_metadata_size(handle, identifier)
                guard size <= maximumEXIFSize else {
                    throw MediaError(.tooLarge, "\(name) has a metadata item of \(size) bytes, more than Lightbox reads (\(maximumEXIFSize))")
                }
                var item = Data(count: size)
                let copied = item.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, identifier, $0.baseAddress) }
                guard copied.code == heif_error_Ok else {
                    throw MediaError(.malformed, "\(name) has a metadata item libheif cannot read: \(String(cString: copied.message))")
                }
                result.append(item)
            }
            return result
        }
        let xmp = metadataIdentifiers(handle, type: "mime").filter { identifier in
            heif_image_handle_get_metadata_content_type(handle, identifier).map { String(cString: $0) } == "application/rdf+xml"
        }
        return (try contents(metadataIdentifiers(handle, type: "Exif")), try contents(xmp))
    }
}

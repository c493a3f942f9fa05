import CHeif
import Foundation

/// HEIC through libheif: the primary image's size and alpha, and its EXIF block through libexif.
/// libheif parses the box structure only; no image is decoded.
enum HEIFReader {
    /// libheif sets up its plugin registry on first use; doing it once, up front, keeps concurrent
    /// imports from racing on it.
    static let initialized: Bool = heif_init(nil).code == heif_error_Ok
    /// EXIF blocks larger than this are broken files (libexif reads at most 64 KB anyway).
    static let maximumEXIFSize = 1 << 20

    static func read(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        let name = file.url.lastPathComponent
        _ = initialized
        guard let context = heif_context_alloc() else {
            throw MediaError(.unreadable, "Cannot read \(name): libheif could not allocate a context")
        }
        defer { heif_context_free(context) }
        let opened = heif_context_read_from_file(context, file.url.path, nil)
        guard opened.code == heif_error_Ok else {
            throw MediaError(.malformed, "\(name) is not a readable HEIF file: \(String(cString: opened.message))")
        }
        var primary: OpaquePointer?
        let found = heif_context_get_primary_image_handle(context, &primary)
        guard found.code == heif_error_Ok, let handle = primary else {
            throw MediaError(.malformed, "\(name) has no primary image: \(String(cString: found.message))")
        }
        defer { heif_image_handle_release(handle) }

        var metadata = MediaMetadata(type: .heic)
        // The stored size, before libheif's rotation (irot) and mirroring (imir) are applied, to
        // match ImageIO and the EXIF orientation that comes with it.
        metadata.pixelWidth = Int(heif_image_handle_get_ispe_width(handle))
        metadata.pixelHeight = Int(heif_image_handle_get_ispe_height(handle))
        guard let width = metadata.pixelWidth, let height = metadata.pixelHeight, width > 0, height > 0 else {
            throw MediaError(.malformed, "\(name) gives its primary image no size (no ispe property)")
        }
        metadata.hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        metadata.frameCount = 1
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        metadata.depth = bits > 0 ? bits : nil
        metadata.colorModel = heif_image_handle_get_chroma_bits_per_pixel(handle) < 0 ? "Gray" : "RGB"
        metadata.profileName = iccProfile(handle).flatMap(ICCProfileDescription.read)
        if let exif = exifBlock(handle) { metadata.apply(EXIFReader.tags(inTIFF: exif)) }
        metadata.hasXMP = metadataIdentifiers(handle, type: "mime").contains { identifier in
            heif_image_handle_get_metadata_content_type(handle, identifier).map { String(cString: $0) } == "application/rdf+xml"
        }
        // A position only the XMP gives is the photo's location too (a HEIC's metadata is not
        // rewritten, so a delivery without the location must know there is one to leave out).
        if metadata.location == nil, metadata.hasXMP, let packet = xmpText(file) {
            metadata.location = XMPLocation.position(in: packet)
        }
        return metadata
    }

    /// The TIFF data of the first Exif item. The item starts with a 4-byte big-endian offset from
    /// there to the TIFF header (usually 6, skipping an `Exif\0\0` some writers keep).
    static func exifBlock(_ handle: OpaquePointer) -> Data? {
        for identifier in metadataIdentifiers(handle, type: "Exif") {
            let size = heif_image_handle_get_metadata_size(handle, identifier)
            guard size > 4, size <= maximumEXIFSize else { continue }
            var item = Data(count: size)
            let copied = item.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, identifier, $0.baseAddress) }
            guard copied.code == heif_error_Ok else { continue }
            let tiffOffset = 4 + Int(item.uint32BE(at: 0))
            guard tiffOffset < size else { continue }
            return item.subdata(in: tiffOffset..<size)
        }
        return nil
    }

    /// The raw ICC profile of an HEIF `colr` box of type `prof` or `rICC`.
    static func iccProfile(_ handle: OpaquePointer) -> Data? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= maximumEXIFSize else { return nil }
        var profile = Data(count: size)
        let copied = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return copied.code == heif_error_Ok ? profile : nil
    }

    /// The primary image's first XMP packet (a `mime` item of type application/rdf+xml) as text;
    /// nil without one, when libheif cannot read the file, or above `maximumEXIFSize`.
    static func xmpText(_ file: FileBytes) -> String? {
        guard let packet = (try? metadataItems(fileAt: file.url))?.xmp.first else { return nil }
        return String(decoding: packet, as: UTF8.self)
    }

    static func metadataIdentifiers(_ handle: OpaquePointer, type: String) -> [heif_item_id] {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
        guard count > 0 else { return [] }
        var identifiers = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &identifiers, Int32(count)))
        return Array(identifiers.prefix(max(0, listed)))
    }
}

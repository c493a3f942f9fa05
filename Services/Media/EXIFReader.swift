import CExif
import Foundation

/// Reads `EXIFTags` from an EXIF block through libexif. Every format hands over the same kind of
/// block (`Exif\0\0` and a TIFF header): JPEG's APP1 payload as it is; WebP, PNG and HEIC carry the
/// bare TIFF data, so `tags(inTIFF:)` adds the header libexif looks for.
enum EXIFReader {
    static let blockHeader = Data("Exif\0\0".utf8)

    /// Tags from a TIFF structure (byte order mark first), as WebP's EXIF chunk and PNG's eXIf
    /// chunk hold it. Some writers put the `Exif\0\0` header in anyway; both work.
    static func tags(inTIFF tiff: Data) -> EXIFTags {
        tags(inBlock: tiff.starts(with: blockHeader) ? tiff : blockHeader + tiff)
    }

    /// Tags from an EXIF block that starts with `Exif\0\0`. A block libexif cannot make sense of
    /// gives no tags rather than an error: the image is still an image.
    static func tags(inBlock block: Data) -> EXIFTags {
        guard let exif = exif_data_new() else { return EXIFTags() }
        defer { exif_data_unref(exif) }
        // "Following the specification" makes libexif add the tags the spec requires, with made-up
        // values (and drop ones in the wrong IFD); Lightbox reports only what the file says.
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        block.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            exif_data_load_data(exif, base, UInt32(clamping: raw.count))
        }
        let entries = EntryReader(order: exif_data_get_byte_order(exif))
        let (ifd0, exifIFD, gpsIFD) = (exif.pointee.ifd.0, exif.pointee.ifd.2, exif.pointee.ifd.3)
        var tags = EXIFTags()
        tags.make = entries.text(ifd0, 0x010F)
        tags.model = entries.text(ifd0, 0x0110)
        tags.dateTime = entries.text(ifd0, 0x0132)
        tags.orientation = entries.integer(ifd0, 0x0112).flatMap { (1...8).contains($0) ? $0 : nil }
        tags.dateTimeOriginal = entries.text(exifIFD, 0x9003)
        tags.offsetTimeOriginal = entries.text(exifIFD, 0x9011)
        tags.dateTimeDigitized = entries.text(exifIFD, 0x9004)
        if let note = entries.entry(exifIFD, 0x927C), note.size > 0 {
            tags.contentIdentifier = AppleMakerNote.contentIdentifier(in: Data(bytes: note.data, count: Int(note.size)))
        }
        tags.offsetTime = entries.text(exifIFD, 0x9010)
        tags.offsetTimeDigitized = entries.text(exifIFD, 0x9012)
        let unit = entries.integer(ifd0, 0x0128) ?? 2
        if unit == 2 || unit == 3 {
            let perInch = unit == 3 ? 2.54 : 1
            tags.dpiWidth = entries.rationals(ifd0, 0x011A)?.first.flatMap { $0 > 0 ? $0 * perInch : nil }
            tags.dpiHeight = entries.rationals(ifd0, 0x011B)?.first.flatMap { $0 > 0 ? $0 * perInch : nil }
        }
        tags.exposureTime = entries.rationals(exifIFD, 0x829A)?.first.flatMap { $0 > 0 ? $0 : nil }
        tags.fNumber = entries.rationals(exifIFD, 0x829D)?.first.flatMap { $0 > 0 ? $0 : nil }
        tags.isoSpeed = entries.integer(exifIFD, 0x8827).flatMap { $0 > 0 ? $0 : nil }
        tags.location = location(gpsIFD, entries)
        return tags
    }

    /// GPS latitude and longitude are three rationals (degrees, minutes, seconds) plus an N/S or
    /// E/W reference; altitude is one rational plus 0 (above sea level) or 1 (below).
    private static func location(_ gps: UnsafeMutablePointer<ExifContent>?, _ entries: EntryReader) -> GeoLocation? {
        func degrees(_ tag: UInt16) -> Double? {
            guard let parts = entries.rationals(gps, tag), !parts.isEmpty else { return nil }
            let padded = parts + [0, 0]
            return padded[0] + padded[1] / 60 + padded[2] / 3600
        }
        guard let latitude = degrees(0x0002), let longitude = degrees(0x0004) else { return nil }
        let south = entries.text(gps, 0x0001)?.uppercased().hasPrefix("S") == true
        let west = entries.text(gps, 0x0003)?.uppercased().hasPrefix("W") == true
        let belowSeaLevel = entries.integer(gps, 0x0005) == 1
        let altitude = entries.rationals(gps, 0x0006)?.first.map { belowSeaLevel ? -$0 : $0 }
        return GeoLocation(latitude: south ? -latitude : latitude, longitude: west ? -longitude : longitude, altitude: altitude)
    }
}

/// Reads entry values from their raw bytes, checking format and size first: broken files put
/// strings where numbers belong and counts larger than their data.
private struct EntryReader {
    let order: ExifByteOrder

    func entry(_ content: UnsafeMutablePointer<ExifContent>?, _ tag: UInt16) -> ExifEntry? {
        guard let content, let entry = exif_content_get_entry(content, ExifTag(rawValue: UInt32(tag))),
              entry.pointee.data != nil else { return nil }
        let (needed, overflow) = Int(exif_format_get_size(entry.pointee.format))
            .multipliedReportingOverflow(by: Int(clamping: entry.pointee.components))
        guard !overflow, needed > 0, Int(entry.pointee.size) >= needed else { return nil }
        return entry.pointee
    }

    /// An ASCII value up to its first NUL, trimmed; nil when blank.
    func text(_ content: UnsafeMutablePointer<ExifContent>?, _ tag: UInt16) -> String? {
        guard let entry = entry(content, tag), entry.format == EXIF_FORMAT_ASCII || entry.format == EXIF_FORMAT_UNDEFINED else { return nil }
        let bytes = UnsafeBufferPointer(start: entry.data, count: Int(entry.size)).prefix { $0 != 0 }
        let value = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// The first value of an integer entry. The spec says SHORT for the tags read here, but writers
    /// use other widths and signed types (Sony stores Orientation as SLONG), and readers such as
    /// exiftool accept them; a photo should not lose its orientation over a type code.
    func integer(_ content: UnsafeMutablePointer<ExifContent>?, _ tag: UInt16) -> Int? {
        guard let entry = entry(content, tag) else { return nil }
        switch entry.format {
        case EXIF_FORMAT_BYTE: return Int(entry.data[0])
        case EXIF_FORMAT_SBYTE: return Int(Int8(bitPattern: entry.data[0]))
        case EXIF_FORMAT_SHORT: return Int(exif_get_short(entry.data, order))
        case EXIF_FORMAT_SSHORT: return Int(exif_get_sshort(entry.data, order))
        case EXIF_FORMAT_LONG: return Int(exif_get_long(entry.data, order))
        case EXIF_FORMAT_SLONG: return Int(exif_get_slong(entry.data, order))
        default: return nil
        }
    }

    /// The values of a RATIONAL (or, from sloppy writers, SRATIONAL) entry; nil if any has a zero
    /// denominator, since a coordinate or exposure made of a division by zero means nothing.
    func rationals(_ content: UnsafeMutablePointer<ExifContent>?, _ tag: UInt16) -> [Double]? {
        guard let entry = entry(content, tag) else { return nil }
        var values: [Double] = []
        for index in 0..<Int(clamping: entry.components) {
            let bytes = entry.data + index * 8
            switch entry.format {
            case EXIF_FORMAT_RATIONAL:
                let value = exif_get_rational(bytes, order)
                guard value.denominator != 0 else { return nil }
                values.append(Double(value.numerator) / Double(value.denominator))
            case EXIF_FORMAT_SRATIONAL:
                let value = exif_get_srational(bytes, order)
                guard value.denominator != 0 else { return nil }
                values.append(Double(value.numerator) / Double(value.denominator))
            default:
                return nil
            }
        }
        return values
    }
}

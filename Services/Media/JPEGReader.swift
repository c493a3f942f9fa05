import CExif
import Foundation

/// JPEG: pixel size from the frame header (SOFn), capture date from EXIF through libexif.
enum JPEGReader {
    static func read(_ file: FileBytes) throws -> MediaMetadata {
        var metadata = MediaMetadata(type: .jpeg)
        var offset: UInt64 = 2
        // Walk the marker segments up to the first frame header.
        while offset + 4 <= file.size {
            let marker = try file.readExactly(at: offset, count: 4, what: "marker segments")
            guard marker[0] == 0xFF else {
                throw MediaError(.malformed, "\(file.url.lastPathComponent) has a broken JPEG marker at byte \(offset)")
            }
            let code = marker[1]
            if code == 0xFF { offset += 1; continue }  // fill byte
            let length = UInt64(marker.uint16BE(at: 2))
            if (0xC0...0xCF).contains(code), ![0xC4, 0xC8, 0xCC].contains(code) {
                let frame = try file.readExactly(at: offset + 4, count: 5, what: "frame header")
                metadata.pixelHeight = Int(frame.uint16BE(at: 1))
                metadata.pixelWidth = Int(frame.uint16BE(at: 3))
                break
            }
            if code == 0xDA || code == 0xD9 { break }
            offset += 2 + length
        }
        guard metadata.pixelWidth != nil else {
            throw MediaError(.malformed, "\(file.url.lastPathComponent) has no JPEG frame header (truncated file?)")
        }
        metadata.creationDate = EXIFDate.dateTimeOriginal(ofFileAt: file.url)
        return metadata
    }
}

/// EXIF date fields through libexif.
enum EXIFDate {
    static func dateTimeOriginal(ofFileAt url: URL) -> Date? {
        guard let data = exif_data_new_from_file(url.path) else { return nil }
        defer { exif_data_unref(data) }
        let ifds = data.pointee.ifd
        for (content, tag) in [(ifds.2, EXIF_TAG_DATE_TIME_ORIGINAL), (ifds.0, EXIF_TAG_DATE_TIME)] {
            guard let content, let entry = exif_content_get_entry(content, tag) else { continue }
            var buffer = [CChar](repeating: 0, count: 64)
            exif_entry_get_value(entry, &buffer, UInt32(buffer.count))
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let date = parse(text) { return date }
        }
        return nil
    }

    /// `2024:06:01 12:30:45`, read as UTC: EXIF dates carry no zone.
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}

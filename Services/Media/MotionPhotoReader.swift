import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds the movie a Motion Photo carries inside its still: an MP4 appended to a JPEG or HEIC, located by
///
/// - Google's Motion Photo 1.0 XMP: `Camera:MotionPhoto="1"` and a `Container:Directory` whose
///   `MotionPhoto` item gives the movie's `Length`; the movie is the file's last item, so it starts
///   `Length` bytes before the end (its `Padding` lies before it and needs no arithmetic);
/// - the older `GCamera:MicroVideo="1"` with `GCamera:MicroVideoOffset`, the movie's distance from
///   the end of the file;
/// - Samsung's trailer: the MP4 follows a `MotionPhoto_Data` marker and runs as far as its boxes do.
///
/// Whatever the file claims is checked: the range lies inside the file after the still's XMP, is
/// no larger than `maximumMovieSize`, and holds an MP4 (an `ftyp` box first, a `moov` box, boxes
/// that fit). A claim that fails is ignored with the reason, and the file stays a plain still.
/// Reads are bounded: the XMP segments, then the file in `scanChunk` pieces for the Samsung marker.
public enum MotionPhotoReader {
    public static let maximumMovieSize: UInt64 = 1 << 30
    static let samsungMarker = Data("MotionPhoto_Data".utf8)
    static let scanChunk = 1 << 20
    /// XMP beyond this (extended XMP, thumbnails in XMP) is not where Motion Photo attributes live.
    static let maximumXMP = 1 << 20

    public enum Finding: Equatable, Sendable {
        /// Nothing in the file says it carries a movie.
        case none
        case motionPhoto(MotionPhoto)
        /// The file says it carries a movie, but the claim does not hold; `reason` says why.
        case ignored(reason: String)
    }

    /// Throws only `MediaError` (an unreadable file); a lying file is `.ignored`, not an error.
    public static func find(inFileAt url: URL) throws -> Finding {
        try find(FileBytes(url))
    }

    /// The same for a file whose whole contents the caller has just read (an import): searched in
    /// memory, the file not opened again. Throws only `MediaError`.
    public static func find(inFileAt url: URL, contents: Data) throws -> Finding {
        try find(FileBytes(url, contents: contents))
    }

    static func find(_ file: FileBytes) throws(MediaError) -> Finding {
        let xmp: String?
        let xmpEnd: UInt64
        switch ContentSniffer.sniff(try file.read(at: 0, count: ContentSniffer.headerLength)) {
        case .jpeg?:
            (xmp, xmpEnd) = try xmpText(of: file)
        case .heic?:
            // The XMP is a HEIF item; the movie lies somewhere after the still's ftyp box.
            xmp = HEIFReader.xmpText(file)
            guard let (_, ftypSize) = try box(in: file, at: 0), ftypSize <= file.size else { return .none }
            xmpEnd = ftypSize
        default:
            return .none
        }
        if let xmp, flag(in: xmp, "MotionPhoto") || flag(in: xmp, "MicroVideo") {
            let timestamp = integer(in: xmp, "MotionPhotoPresentationTimestampUs")
                ?? integer(in: xmp, "MicroVideoPresentationTimestampUs")
            let layout: MotionPhoto.Layout
            let length: Int64
            if flag(in: xmp, "MotionPhoto") {
                guard let item = motionPhotoItem(in: xmp), let itemLength = integer(in: item, "Length") else {
                    return .ignored(reason: "its XMP says Motion Photo but names no MotionPhoto item with a Length")
                }
                (layout, length) = (.googleContainer, itemLength)
            } else {
                guard let offset = integer(in: xmp, "MicroVideoOffset") else {
                    return .ignored(reason: "its XMP says MicroVideo but gives no MicroVideoOffset")
                }
                (layout, length) = (.microVideo, offset)
            }
            guard length > 0, UInt64(length) <= file.size - xmpEnd else {
                return .ignored(reason: "its XMP puts the movie \(length) bytes before the end of a \(file.size)-byte file, outside the file after its XMP")
            }
            let start = file.size - UInt64(length)
            return try validated(file, layout: layout, start: start, end: file.size, timestamp: timestamp)
        }
        guard let marker = try firstOffset(of: samsungMarker, in: file, from: xmpEnd) else { return .none }
        let start = marker + UInt64(samsungMarker.count)
        guard let end = try endOfBoxes(in: file, from: start) else {
            return .ignored(reason: "its movie after MotionPhoto_Data at byte \(marker) has a box that runs past the end of the file (cut short?)")
        }
        return try validated(file, layout: .samsungTrailer, start: start, end: end, timestamp: nil)
    }

    /// The movie's bytes at `photo`'s range of the file at `source`, copied to `destination`
    /// (created 0600) in `scanChunk` pieces.
    public static func copyMovie(_ photo: MotionPhoto, from source: URL, to destination: URL) throws {
        let file = try FileBytes(source)
        guard photo.movieRange.upperBound <= file.size else {
            throw MediaError(.malformed, "\(source.lastPathComponent) is shorter than when its Motion Photo movie was found")
        }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw MediaError(.unreadable, "Cannot create \(destination.lastPathComponent) for the Motion Photo's movie")
        }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        var offset = photo.movieRange.lowerBound
        while offset < photo.movieRange.upperBound {
            let count = Int(min(UInt64(scanChunk), photo.movieRange.upperBound - offset))
            try output.write(contentsOf: try file.readExactly(at: offset, count: count, what: "Motion Photo movie"))
            offset += UInt64(count)
        }
    }

    /// Checks that `start..<end` holds an MP4: `ftyp` first, a `moov`, every box inside the range.
    static func validated(_ file: FileBytes, layout: MotionPhoto.Layout, start: UInt64, end: UInt64,
                          timestamp: Int64?) throws(MediaError) -> Finding {
        let size = end - start
        guard size >= 16 else { return .ignored(reason: "its movie would be \(size) bytes, too short for an MP4") }
        guard size <= maximumMovieSize else {
            return .ignored(reason: "its movie would be \(size) bytes, more than the \(maximumMovieSize) a Motion Photo may carry")
        }
        var offset = start
        var types: [String] = []
        while offset < end {
            guard let (type, boxSize) = try box(in: file, at: offset), boxSize <= end - offset else {
                return .ignored(reason: "its movie at byte \(start) has a box that does not fit its \(size) bytes")
            }
            types.append(type)
            offset += boxSize
        }
        guard types.first == "ftyp" else { return .ignored(reason: "its movie at byte \(start) does not start with an MP4 ftyp box") }
        guard types.contains("moov"), types.contains("mdat") else {
            return .ignored(reason: "its movie at byte \(start) lacks a moov or mdat box")
        }
        return .motionPhoto(MotionPhoto(layout: layout, movieRange: start..<end, presentationTimestampMicroseconds: timestamp))
    }

    /// The type and size of the ISO box at `offset` (a 64-bit size when the 32-bit one is 1), or
    /// nil when the bytes there are not one: a size below its header, or a type that is not four
    /// printable characters. A size of 0 (to the end of the file) is taken as such.
    static func box(in file: FileBytes, at offset: UInt64) throws(MediaError) -> (String, UInt64)? {
        let header = try file.read(at: offset, count: 16)
        guard header.count >= 8 else { return nil }
        let typeBytes = header[(header.startIndex + 4)..<(header.startIndex + 8)]
        guard typeBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        var size = UInt64(header.uint32BE(at: 0))
        var headerSize: UInt64 = 8
        if size == 1 {
            guard header.count == 16 else { return nil }
            size = header.uint64BE(at: 8)
            headerSize = 16
        } else if size == 0 {
            size = file.size - offset
        }
        guard size >= headerSize else { return nil }
        return (header.ascii(at: 4, count: 4), size)
    }

    /// Where the boxes from `start` stop: at the end of the file or before the first bytes that
    /// are not a box (Samsung's own trailer follows the movie); nil when a box runs past the end.
    static func endOfBoxes(in file: FileBytes, from start: UInt64) throws(MediaError) -> UInt64? {
        var offset = start
        while offset < file.size, let (_, size) = try box(in: file, at: offset) {
            guard size <= file.size - offset else { return nil }
            offset += size
        }
        return offset
    }

    /// The text of the JPEG's XMP APP1 segments before the image data (nil without any), and the
    /// offset just past the last segment read.
    static func xmpText(of file: FileBytes) throws(MediaError) -> (String?, UInt64) {
        var offset: UInt64 = 2
        var xmp = Data()
        while offset + 4 <= file.size {
            let marker = try file.read(at: offset, count: 4)
            guard marker.count == 4, marker[marker.startIndex] == 0xFF else { break }
            let code = marker[marker.startIndex + 1]
            // Image data, end of image, or markers without a length: the metadata segments are over.
            if code == 0xDA || code == 0xD9 || code == 0x01 || (0xD0...0xD8).contains(code) { break }
            let length = UInt64(marker.uint16BE(at: 2))
            guard length >= 2 else { break }
            let payloadLength = Int(length - 2)
            if code == 0xE1, payloadLength > JPEGReader.xmpSignature.count, xmp.count + payloadLength <= maximumXMP {
                let payload = try file.read(at: offset + 4, count: payloadLength)
                if payload.starts(with: JPEGReader.xmpSignature) { xmp += payload.dropFirst(JPEGReader.xmpSignature.count) }
            }
            offset += 4 + UInt64(payloadLength)
        }
        return (xmp.isEmpty ? nil : String(decoding: xmp, as: UTF8.self), min(offset, file.size))
    }

    /// Whether `name` (in any namespace prefix) is "1" or "true", as an attribute or an element.
    static func flag(in xmp: Substring, _ name: String) -> Bool {
        guard let value = value(in: xmp, name) else { return false }
        return value == "1" || value.lowercased() == "true"
    }

    static func flag(in xmp: String, _ name: String) -> Bool { flag(in: xmp[...], name) }

    static func integer(in xmp: Substring, _ name: String) -> Int64? {
        value(in: xmp, name).flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    static func integer(in xmp: String, _ name: String) -> Int64? { integer(in: xmp[...], name) }

    /// The value of `prefix:name="…"` or `<prefix:name>…<`, the first found.
    static func value(in xmp: Substring, _ name: String) -> String? {
        var rest = xmp
        while let found = rest.range(of: ":" + name) {
            let after = rest[found.upperBound...]
            rest = after
            if after.hasPrefix("=\"") || after.hasPrefix("='") {
                let quote = after[after.index(after.startIndex, offsetBy: 1)]
                let valueStart = after.index(after.startIndex, offsetBy: 2)
                guard let end = after[valueStart...].firstIndex(of: quote) else { return nil }
                return String(after[valueStart..<end])
            }
            if after.hasPrefix(">") {
                let valueStart = after.index(after.startIndex, offsetBy: 1)
                guard let end = after[valueStart...].firstIndex(of: "<") else { return nil }
                return String(after[valueStart..<end])
            }
        }
        return nil
    }

    /// The `Container:Directory` item whose `Item:Semantic` is MotionPhoto: the text from its
    /// `<rdf:li` to the next.
    static func motionPhotoItem(in xmp: String) -> Substring? {
        guard let directory = xmp.range(of: ":Directory") else { return nil }
        let items = xmp[directory.upperBound...].components(separatedBy: "<rdf:li").dropFirst()
        return items.first { value(in: $0[...], "Semantic") == "MotionPhoto" }.map { $0[...] }
    }

    /// The offset of the first `pattern` at or after `start`: searched in place in contents held in
    /// memory, else reading `scanChunk` bytes at a time.
    static func firstOffset(of pattern: Data, in file: FileBytes, from start: UInt64) throws(MediaError) -> UInt64? {
        if let contents = file.contents {
            guard start < file.size else { return nil }
            return Self.firstIndex(of: pattern, in: contents[(contents.startIndex + Int(start))...]).map { start + UInt64($0) }
        }
        var offset = start
        while offset < file.size {
            let chunk = try file.read(at: offset, count: scanChunk + pattern.count - 1)
            if let found = Self.firstIndex(of: pattern, in: chunk) { return offset + UInt64(found) }
            guard chunk.count >= pattern.count else { return nil }
            offset += UInt64(chunk.count - pattern.count + 1)
        }
        return nil
    }

    /// Where `pattern` first starts in `bytes` (from 0), found with the C library's `memchr` and
    /// `memcmp`: Data's own search compares a byte at a time through generic indexing, and every
    /// still is scanned.
    static func firstIndex(of pattern: Data, in bytes: Data) -> Int? {
        bytes.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                guard let start = haystack.baseAddress, let wanted = needle.baseAddress, needle.count > 0 else { return nil }
                let first = Int32(needle[0])
                var position = 0
                while haystack.count - position >= needle.count {
                    guard let candidate = memchr(start + position, first, haystack.count - needle.count + 1 - position) else { return nil }
                    let index = start.distance(to: UnsafeRawPointer(candidate))
                    if memcmp(start + index, wanted, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }
}

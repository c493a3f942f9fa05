import CExif
import Foundation

/// Takes the GPS IFD out of EXIF data by editing the TIFF structure in place: its pointer (tag
/// 0x8825) is removed from IFD 0, and the GPS IFD and every value it points to are overwritten with
/// zeros (except bytes another IFD uses too). Every other byte stays where it was, so maker notes,
/// which often hold absolute offsets, still read as before (a libexif load and save would move
/// them, and drop what libexif does not understand).
enum EXIFLocationRemover {
    static let gpsPointerTag = 0x8825

    /// `tiff` starts with its byte order mark (`II` or `MM`), as PNG's eXIf and WebP's EXIF chunk
    /// hold it, or with `Exif\0\0` as JPEG's APP1 does (kept in the result). Nil when the structure
    /// cannot be followed far enough to be sure the location is gone: the caller drops the block.
    static func removingLocation(from block: Data) -> Data? {
        let header = block.starts(with: EXIFReader.blockHeader) ? EXIFReader.blockHeader : Data()
        var tiff = TIFFBytes(Array(block.dropFirst(header.count)))
        guard tiff.isValid else { return nil }
        // A writer may repeat the pointer; remove each copy (each pass removes one).
        for _ in 0..<8 {
            guard let removed = tiff.removeGPSIFD() else { return nil }
            if !removed { break }
        }
        let result = header + Data(tiff.bytes)
        guard !containsGPS(result) else { return nil }
        return result
    }

    /// The block as `removal` leaves it: its location approximated (`EXIFLocationApproximator`, at
    /// most `maximumSize` bytes long, else edited where it is; where neither can be done, the location
    /// removed) or removed. Removing keeps the block's length.
    /// Nil when the caller must drop the block (see `removingLocation`).
    static func location(removedFrom block: Data, _ removal: MetadataRemoval, maximumSize: Int = .max) -> Data? {
        if removal == .approximateLocation {
            if let approximated = EXIFLocationApproximator.approximatingLocation(in: block), approximated.count <= maximumSize {
                return approximated
            }
            if let approximated = EXIFLocationApproximator.approximatingLocation(in: block, growing: false) {
                return approximated
            }
        }
        return removingLocation(from: block)
    }

    /// Whether libexif finds any GPS entry in the block (a second opinion on the edit above).
    static func containsGPS(_ block: Data) -> Bool {
        let framed = block.starts(with: EXIFReader.blockHeader) ? block : EXIFReader.blockHeader + block
        guard let exif = exif_data_new() else { return true }
        defer { exif_data_unref(exif) }
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(exif, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        framed.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            exif_data_load_data(exif, base, UInt32(clamping: raw.count))
        }
        return (exif.pointee.ifd.3?.pointee.count ?? 0) > 0 || EXIFReader.tags(inBlock: framed).location != nil
    }
}

/// A TIFF structure as bytes, read and patched in its own byte order.
struct TIFFBytes {
    var bytes: [UInt8]
    let littleEndian: Bool

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        littleEndian = bytes.count >= 2 && bytes[0] == 0x49 && bytes[1] == 0x49
    }

    var isValid: Bool {
        guard bytes.count >= 8 else { return false }
        let bigEndian = bytes[0] == 0x4D && bytes[1] == 0x4D
        return (littleEndian || bigEndian) && uint16(2) == 42
    }

    func uint16(_ index: Int) -> Int? {
        guard index >= 0, index + 2 <= bytes.count else { return nil }
        let (a, b) = (Int(bytes[index]), Int(bytes[index + 1]))
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    func uint32(_ index: Int) -> Int? {
        guard let first = uint16(index), let second = uint16(index + 2) else { return nil }
        return littleEndian ? first | second << 16 : first << 16 | second
    }

    mutating func setUInt16(_ value: Int, at index: Int) {
        let (high, low) = (UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        (bytes[index], bytes[index + 1]) = littleEndian ? (low, high) : (high, low)
    }

    mutating func zero(_ range: Range<Int>) {
        let clamped = range.clamped(to: 0..<bytes.count)
        for index in clamped { bytes[index] = 0 }
    }

    /// Bytes per value of a TIFF field type; nil for types TIFF does not define.
    static func size(ofType type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// Removes one GPS IFD and its pointer: true if it did, false if IFD 0 has none, nil if the
    /// structure is broken (an offset past the end, a type without a size).
    ///
    /// Only bytes that nothing else uses are zeroed: broken writers point GPS values into other
    /// IFDs (or the GPS pointer at the EXIF IFD itself), so the ranges every other IFD, its values
    /// and the thumbnail occupy are kept.
    mutating func removeGPSIFD() -> Bool? {
        guard let ifd0 = uint32(4), let count = uint16(ifd0), ifd0 >= 8, ifd0 + 2 + 12 * count + 4 <= bytes.count else { return nil }
        let entries = ifd0 + 2
        guard let pointerIndex = (0..<count).first(where: { uint16(entries + 12 * $0) == EXIFLocationRemover.gpsPointerTag }) else {
            return false
        }
        guard let gps = uint32(entries + 12 * pointerIndex + 8), gps >= 8, let gpsIFD = layout(ofIFDAt: gps) else { return nil }
        // Close the gap the pointer leaves in IFD 0; the next-IFD offset moves up with the entries.
        let pointer = entries + 12 * pointerIndex
        let tableEnd = entries + 12 * count + 4
        bytes.replaceSubrange(pointer..<(tableEnd - 12), with: bytes[(pointer + 12)..<tableEnd])
        zero((tableEnd - 12)..<tableEnd)
        setUInt16(count - 1, at: ifd0)
        // Then zero the GPS IFD where nothing that is left uses its bytes.
        let kept = usedRanges()
        for range in gpsIFD.ranges {
            for index in range.clamped(to: 0..<bytes.count) where !kept.contains(where: { $0.contains(index) }) {
                bytes[index] = 0
            }
        }
        return true
    }

    /// Where an IFD's bytes are: its entry table (with the next-IFD offset), the values too large
    /// for an entry, and the offsets of the IFDs it points to (EXIF 0x8769, interoperability
    /// 0xA005, GPS 0x8825) and of the next IFD. Nil when any of it lies outside the data.
    func layout(ofIFDAt offset: Int) -> (ranges: [Range<Int>], children: [(tag: Int, offset: Int)], next: Int?)? {
        guard offset >= 8, let count = uint16(offset), offset + 2 + 12 * count + 4 <= bytes.count else { return nil }
        var ranges = [offset..<(offset + 2 + 12 * count + 4)]
        var children: [(tag: Int, offset: Int)] = []
        var thumbnail: (offset: Int?, length: Int?) = (nil, nil)
        for index in 0..<count {
            let entry = offset + 2 + 12 * index
            guard let tag = uint16(entry), let type = uint16(entry + 2), let components = uint32(entry + 4) else { return nil }
            guard let unit = Self.size(ofType: type) else { continue }  // unknown type: its value cannot be located
            let (length, overflow) = unit.multipliedReportingOverflow(by: components)
            guard !overflow else { return nil }
            if length > 4 {
                guard let valueOffset = uint32(entry + 8), valueOffset + length <= bytes.count else { return nil }
                ranges.append(valueOffset..<(valueOffset + length))
            }
            switch tag {
            case 0x8769, 0xA005, 0x8825:
                if let child = uint32(entry + 8), child >= 8 { children.append((tag, child)) }
            case 0x0201: thumbnail.offset = uint32(entry + 8)
            case 0x0202: thumbnail.length = uint32(entry + 8)
            default: break
            }
        }
        if let start = thumbnail.offset, let length = thumbnail.length, start + length <= bytes.count {
            ranges.append(start..<(start + length))
        }
        let next = uint32(offset + 2 + 12 * count).flatMap { $0 >= 8 ? $0 : nil }
        return (ranges, children, next)
    }

    /// Every range IFD 0, IFD 1, the EXIF and interoperability IFDs and their values use (the GPS
    /// IFD is not followed).
    func usedRanges() -> [Range<Int>] {
        var ranges: [Range<Int>] = [0..<8]
        var pending = uint32(4).map { [$0] } ?? []
        var visited: Set<Int> = []
        while let offset = pending.popLast() {
            guard visited.insert(offset).inserted, visited.count < 16, let ifd = layout(ofIFDAt: offset) else { continue }
            ranges += ifd.ranges
            pending += ifd.children.filter { $0.tag != EXIFLocationRemover.gpsPointerTag }.map(\.offset)
            if let next = ifd.next { pending.append(next) }
        }
        return ranges
    }
}

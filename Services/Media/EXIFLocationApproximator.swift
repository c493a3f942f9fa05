import Foundation
import LightboxProtocol

/// Puts an approximate position in place of EXIF's GPS IFD: latitude and longitude snapped to the
/// grid of `LocationAccess.approximate` (0.1°), and nothing else GPS can say (altitude, speed,
/// direction, destination, time, satellites, processing method…).
///
/// Like `EXIFLocationRemover`, it edits the TIFF structure without moving a byte another IFD uses
/// (maker notes hold absolute offsets): the old GPS IFD and its values are overwritten with zeros
/// where nothing else uses them, a new GPS IFD of five entries (version, latitude and its
/// reference, longitude and its reference) is appended at the end of the TIFF data, and IFD 0's
/// GPS pointer is pointed at it. The block grows by about 120 bytes.
enum EXIFLocationApproximator {
    /// The block (TIFF data, or `Exif\0\0` and TIFF data) with its location approximated; nil when
    /// it has no readable position or a structure this cannot edit with certainty (the caller then
    /// removes the location). Read back before it is returned: the position is the approximate one
    /// and there is no altitude. With `growing` false the block keeps its length: the GPS IFD is
    /// edited where it is (`approximateGPSIFDInPlace`), for containers whose offsets depend on it.
    static func approximatingLocation(in block: Data, growing: Bool = true) -> Data? {
        let header = block.starts(with: EXIFReader.blockHeader) ? EXIFReader.blockHeader : Data()
        let framed = header.isEmpty ? EXIFReader.blockHeader + block : block
        guard let found = EXIFReader.tags(inBlock: framed).location,
              let approximate = GeoLocation(latitude: LocationAccess.approximate(found.latitude),
                                            longitude: LocationAccess.approximate(found.longitude)) else { return nil }
        var tiff = TIFFBytes(Array(block.dropFirst(header.count)))
        guard tiff.isValid, growing ? tiff.replaceGPSIFD(with: approximate) : tiff.approximateGPSIFDInPlace(with: approximate) else { return nil }
        let result = header + Data(tiff.bytes)
        let check = EXIFReader.tags(inBlock: header.isEmpty ? EXIFReader.blockHeader + result : result).location
        guard let check, check.altitude == nil, abs(check.latitude - approximate.latitude) < 1e-9,
              abs(check.longitude - approximate.longitude) < 1e-9 else { return nil }
        return result
    }
}

extension TIFFBytes {
    /// Replaces the one GPS IFD IFD 0 points to with one holding only `location` (see
    /// `EXIFLocationApproximator`). False, changing nothing, when there is no GPS pointer, more than
    /// one, or a structure that cannot be followed.
    mutating func replaceGPSIFD(with location: GeoLocation) -> Bool {
        guard let ifd0 = uint32(4), let count = uint16(ifd0), ifd0 >= 8, ifd0 + 2 + 12 * count + 4 <= bytes.count else { return false }
        let entries = ifd0 + 2
        let pointers = (0..<count).filter { uint16(entries + 12 * $0) == EXIFLocationRemover.gpsPointerTag }
        guard pointers.count == 1, let pointerIndex = pointers.first else { return false }
        let pointer = entries + 12 * pointerIndex
        // The pointer must be a LONG (or IFD) holding one offset.
        guard let type = uint16(pointer + 2), type == 4 || type == 13, uint32(pointer + 4) == 1,
              let gps = uint32(pointer + 8), gps >= 8, let old = layout(ofIFDAt: gps) else { return false }
        let kept = usedRanges()
        for range in old.ranges {
            for index in range.clamped(to: 0..<bytes.count) where !kept.contains(where: { $0.contains(index) }) {
                bytes[index] = 0
            }
        }
        if bytes.count % 2 == 1 { bytes.append(0) }  // TIFF offsets are even
        let start = bytes.count
        let entryCount = 5
        let valuesStart = start + 2 + 12 * entryCount + 4
        var ifd: [UInt8] = []
        ifd += encode16(entryCount)
        ifd += entry(tag: 0x0000, type: 1, count: 4, inline: [2, 2, 0, 0])                       // GPSVersionID 2.2
        ifd += entry(tag: 0x0001, type: 2, count: 2, inline: [location.latitude < 0 ? 0x53 : 0x4E, 0, 0, 0])   // S / N
        ifd += entry(tag: 0x0002, type: 5, count: 3, offset: valuesStart)                          // GPSLatitude
        ifd += entry(tag: 0x0003, type: 2, count: 2, inline: [location.longitude < 0 ? 0x57 : 0x45, 0, 0, 0])  // W / E
        ifd += entry(tag: 0x0004, type: 5, count: 3, offset: valuesStart + 24)                     // GPSLongitude
        ifd += encode32(0)  // no next IFD
        ifd += rationals(abs(location.latitude)) + rationals(abs(location.longitude))
        bytes += ifd
        // Point IFD 0's GPS entry at the new IFD (the value of a one-LONG entry is the offset itself).
        let offset = encode32(start)
        for (index, byte) in offset.enumerated() { bytes[pointer + 8 + index] = byte }
        return true
    }

    /// Edits the one GPS IFD IFD 0 points to where it is, so the TIFF data keeps its length: its
    /// entries but the version, latitude and longitude (and their references) are taken out (their
    /// values zeroed where nothing else uses them), and the latitude and longitude values are
    /// overwritten with `location`'s. False, changing nothing, when there is no GPS pointer, more
    /// than one, no latitude or longitude as three RATIONALs with their references, or a structure
    /// that cannot be followed.
    mutating func approximateGPSIFDInPlace(with location: GeoLocation) -> Bool {
        guard let ifd0 = uint32(4), let count = uint16(ifd0), ifd0 >= 8, ifd0 + 2 + 12 * count + 4 <= bytes.count else { return false }
        let pointers = (0..<count).filter { uint16(ifd0 + 2 + 12 * $0) == EXIFLocationRemover.gpsPointerTag }
        guard pointers.count == 1, let gps = uint32(ifd0 + 2 + 12 * pointers[0] + 8), let old = layout(ofIFDAt: gps),
              let gpsCount = uint16(gps) else { return false }
        var kept: [[UInt8]] = []
        var values: [Int: Int] = [:]  // tag → offset of its rationals
        var references: Set<Int> = []
        for index in 0..<gpsCount {
            let entry = gps + 2 + 12 * index
            guard let tag = uint16(entry), let type = uint16(entry + 2), let components = uint32(entry + 4) else { return false }
            switch tag {
            case 0x0000:
                kept.append(Array(bytes[entry..<(entry + 12)]))
            case 0x0001, 0x0003:
                guard type == 2, components <= 4 else { return false }
                references.insert(tag)
                kept.append(Array(bytes[entry..<(entry + 8)]) + [0, 0, 0, 0])
            case 0x0002, 0x0004:
                guard type == 5, components == 3, let offset = uint32(entry + 8), offset + 24 <= bytes.count else { return false }
                values[tag] = offset
                kept.append(Array(bytes[entry..<(entry + 12)]))
            default:
                continue
            }
        }
        guard references == [0x0001, 0x0003], let latitude = values[0x0002], let longitude = values[0x0004] else { return false }
        let used = usedRanges()
        // The new position goes where the old one was: only where nothing else reads those bytes.
        guard !used.contains(where: { $0.overlaps(latitude..<(latitude + 24)) || $0.overlaps(longitude..<(longitude + 24)) }) else {
            return false
        }
        for range in old.ranges {
            for index in range.clamped(to: 0..<bytes.count) where !used.contains(where: { $0.contains(index) }) {
                bytes[index] = 0
            }
        }
        setUInt16(kept.count, at: gps)
        for (index, entry) in kept.enumerated() {
            var entry = entry
            switch (entry[0], entry[1]) {
            case (0, 1), (1, 0): entry[8] = location.latitude < 0 ? 0x53 : 0x4E   // S / N (tag 1 in either byte order)
            case (0, 3), (3, 0): entry[8] = location.longitude < 0 ? 0x57 : 0x45  // W / E
            default: break
            }
            bytes.replaceSubrange((gps + 2 + 12 * index)..<(gps + 14 + 12 * index), with: entry)
        }
        bytes.replaceSubrange(latitude..<(latitude + 24), with: rationals(abs(location.latitude)))
        bytes.replaceSubrange(longitude..<(longitude + 24), with: rationals(abs(location.longitude)))
        return true
    }

    /// Degrees as EXIF's three rationals: whole degrees, whole minutes (a 0.1° grid gives multiples
    /// of 6) and seconds in hundredths, counted in whole hundredths of a second so that no
    /// floating-point remainder turns 54 minutes into 53 and 59.99 seconds.
    private func rationals(_ degrees: Double) -> [UInt8] {
        let hundredths = Int((degrees * 360_000).rounded())
        let (whole, minutes, seconds) = (hundredths / 360_000, hundredths % 360_000 / 6000, hundredths % 6000)
        return encode32(whole) + encode32(1) + encode32(minutes) + encode32(1) + encode32(seconds) + encode32(100)
    }

    private func entry(tag: Int, type: Int, count: Int, inline: [UInt8]) -> [UInt8] {
        encode16(tag) + encode16(type) + encode32(count) + inline
    }

    private func entry(tag: Int, type: Int, count: Int, offset: Int) -> [UInt8] {
        encode16(tag) + encode16(type) + encode32(count) + encode32(offset)
    }

    private func encode16(_ value: Int) -> [UInt8] {
        let (high, low) = (UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        return littleEndian ? [low, high] : [high, low]
    }

    private func encode32(_ value: Int) -> [UInt8] {
        let big = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return littleEndian ? big.reversed() : big
    }
}

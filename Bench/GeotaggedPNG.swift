import Foundation

/// `TinyPNG`s with an `eXIf` chunk, for `bench browse`: each names a camera, a capture time and a
/// GPS position, so that the library the bench imports can be searched by place, camera and date
/// as a person's is. The EXIF is a little-endian TIFF written here: IFD0 (Make, Model and the
/// pointers), the Exif IFD (DateTimeOriginal) and the GPS IFD (latitude and longitude).
enum GeotaggedPNG {
    struct Tags {
        var make: String
        var model: String
        /// "YYYY:MM:DD HH:MM:SS", as EXIF writes it.
        var taken: String
        var latitude: Double
        var longitude: Double
    }

    static func make(number: Int, tags: Tags) -> Data {
        let png = TinyPNG.make(number: number)
        // After the signature and IHDR (8 + 25 bytes), before IDAT.
        let split = 8 + 25
        var chunk = Data()
        chunk.appendChunk("eXIf", exif(tags))
        return png.prefix(split) + chunk + png.dropFirst(split)
    }

    /// One IFD entry: tag, type (2 ASCII, 4 LONG, 5 RATIONAL), count and its value's bytes.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: Data
    }

    static func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Data(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes)
    }

    static func long(_ tag: UInt16, _ value: UInt32) -> Entry {
        Entry(tag: tag, type: 4, count: 1, value: littleEndian(value))
    }

    /// Degrees as three rationals: degrees, minutes, seconds (in hundredths).
    static func degrees(_ tag: UInt16, _ value: Double) -> Entry {
        let magnitude = abs(value)
        let whole = UInt32(magnitude), minutes = UInt32((magnitude - Double(whole)) * 60)
        let seconds = UInt32(((magnitude - Double(whole)) * 3600 - Double(minutes) * 60) * 100)
        var bytes = Data()
        for (numerator, denominator) in [(whole, UInt32(1)), (minutes, 1), (seconds, 100)] {
            bytes += littleEndian(numerator) + littleEndian(denominator)
        }
        return Entry(tag: tag, type: 5, count: 3, value: bytes)
    }

    static func exif(_ tags: Tags) -> Data {
        let exifIFD = [ascii(0x9003, tags.taken)]
        let gpsIFD = [ascii(0x0001, tags.latitude >= 0 ? "N" : "S"), degrees(0x0002, tags.latitude),
                      ascii(0x0003, tags.longitude >= 0 ? "E" : "W"), degrees(0x0004, tags.longitude)]
        // IFD0's pointers are filled in once the sizes are known.
        var ifd0 = [ascii(0x010F, tags.make), ascii(0x0110, tags.model), long(0x8769, 0), long(0x8825, 0)]
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + size(of: ifd0)
        let gpsOffset = exifOffset + size(of: exifIFD)
        ifd0[2].value = littleEndian(UInt32(exifOffset))
        ifd0[3].value = littleEndian(UInt32(gpsOffset))
        var tiff = Data([0x49, 0x49, 0x2A, 0x00]) + littleEndian(UInt32(ifd0Offset))
        tiff += write(ifd0, at: ifd0Offset) + write(exifIFD, at: exifOffset) + write(gpsIFD, at: gpsOffset)
        return tiff
    }

    /// An IFD's bytes: count, entries, next-IFD offset (none), then the values over 4 bytes.
    static func size(of entries: [Entry]) -> Int {
        2 + 12 * entries.count + 4 + entries.reduce(0) { $0 + ($1.value.count > 4 ? padded($1.value.count) : 0) }
    }

    static func write(_ entries: [Entry], at offset: Int) -> Data {
        var table = littleEndian(UInt16(entries.count))
        var values = Data()
        let valuesOffset = offset + 2 + 12 * entries.count + 4
        for entry in entries {
            table += littleEndian(entry.tag) + littleEndian(entry.type) + littleEndian(entry.count)
            if entry.value.count <= 4 {
                table += entry.value + Data(count: 4 - entry.value.count)
            } else {
                table += littleEndian(UInt32(valuesOffset + values.count))
                values += entry.value + Data(count: padded(entry.value.count) - entry.value.count)
            }
        }
        return table + littleEndian(UInt32(0)) + values
    }

    static func padded(_ count: Int) -> Int { count + count % 2 }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }
}

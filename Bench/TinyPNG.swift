import Foundation
import LightboxCommandLineSupport

/// Small distinct PNG files for `bench scale`: an 8 × 8 RGB image whose pixels spell out a number,
/// stored with uncompressed deflate blocks (no zlib needed; every decoder reads it). `bench ops`
/// makes a large one the same way.
enum TinyPNG {
    static let side = 8

    static func make(number: Int) -> Data {
        make(width: side, height: side) { row, column in
            let value = UInt64(number) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(row * side + column) &* 0xBF58_476D_1CE4_E5B9
            return (UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 32), UInt8(truncatingIfNeeded: value >> 48))
        }
    }

    /// Writes `count` distinct small PNGs (`make(number:)`, or what `contents` makes of each
    /// number), a second apart in time, in folders of 1,000 below `media`; returns the folders.
    static func writeFolders(_ count: Int, into media: URL, contents: (Int) -> Data = { make(number: $0) }) throws -> [URL] {
        let bar = ProgressBar("writing images")
        let newest = Date()
        var folders: [URL] = []
        for index in 0..<count {
            if index % 1000 == 0 {
                let folder = media.appendingPathComponent(String(format: "%04d", index / 1000))
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                folders.append(folder)
            }
            let file = folders.last!.appendingPathComponent("img-\(index).png")
            try contents(index).write(to: file)
            try FileManager.default.setAttributes([.modificationDate: newest.addingTimeInterval(-Double(index))], ofItemAtPath: file.path)
            if index % 500 == 0 || index == count - 1 { bar.update(items: index + 1, of: count, current: "") }
        }
        return folders
    }

    /// An 8-bit RGB PNG of `width` × `height` whose pixels `pixel(row, column)` gives.
    static func make(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Data {
        var raw = Data(capacity: height * (1 + 3 * width))
        for row in 0..<height {
            raw.append(0)  // filter: none
            for column in 0..<width {
                let (red, green, blue) = pixel(row, column)
                raw.append(contentsOf: [red, green, blue])
            }
        }
        var zlib = Data([0x78, 0x01])
        var start = raw.startIndex
        repeat {
            let end = min(start + 65_535, raw.endIndex)
            let length = UInt16(end - start)
            zlib.append(end == raw.endIndex ? 1 : 0)  // stored block, the last one flagged
            zlib.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)])
            zlib.append(raw[start..<end])
            start = end
        } while start < raw.endIndex
        zlib.append(bigEndian: adler32(raw))

        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: UInt32(width))
        header.append(bigEndian: UInt32(height))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, deflate, no filter method, no interlace
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", zlib)
        png.appendChunk("IEND", Data())
        return png
    }

    static func adler32(_ data: Data) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

/// PNG's big-endian numbers and chunks (also `GeotaggedPNG`'s).
extension Data {
    mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendChunk(_ type: String, _ body: Data) {
        append(bigEndian: UInt32(body.count))
        let typed = Data(type.utf8) + body
        append(typed)
        append(bigEndian: TinyPNG.crc32(typed))
    }
}

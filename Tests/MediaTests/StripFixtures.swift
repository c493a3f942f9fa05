import Foundation
import Testing

/// Sample files with every kind of metadata added, for the stripper's tests.
let xmpWithGPS = """
    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
    <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="59,54.834N" \
    exif:GPSLongitude="10,45.132E"/></rdf:RDF></x:xmpmeta>
    """

enum JPEGFixtures {
    /// harbour.jpg with XMP (exif:GPS*), a Photoshop APP13 (IPTC caption and city, an XMP copy), a
    /// comment, and bytes after its end.
    static func harbourWithEverything() throws -> Data {
        var bytes = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let exif = try #require(JPEGSegments(bytes).segments.first { $0.marker == 0xE1 })
        let added = segment(0xE1, Data("http://ns.adobe.com/xap/1.0/\0".utf8) + Data(xmpWithGPS.utf8))
            + segment(0xED, photoshopPayload()) + segment(0xFE, Data("a comment".utf8))
        bytes.insert(contentsOf: added, at: exif.offset + exif.length)
        bytes += Data("TRAILER Exif GPS".utf8)
        return bytes
    }

    /// harbour.jpg with orientation 6 and a GPS IFD pointer that points past the end of the EXIF
    /// data, so the GPS IFD cannot be found to be removed.
    static func harbourWithBrokenGPSPointer() throws -> Data {
        var bytes = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let exif = try #require(JPEGSegments(bytes).segments.first { $0.marker == 0xE1 })
        let tiff = exif.offset + 4 + 6
        let bigEndian = bytes[tiff] == 0x4D
        func uint16(_ index: Int) -> Int {
            bigEndian ? Int(bytes[index]) << 8 | Int(bytes[index + 1]) : Int(bytes[index]) | Int(bytes[index + 1]) << 8
        }
        let ifd0 = tiff + (bigEndian ? uint16(tiff + 4) << 16 | uint16(tiff + 6) : uint16(tiff + 4) | uint16(tiff + 6) << 16)
        for entry in (0..<uint16(ifd0)).map({ ifd0 + 2 + 12 * $0 }) {
            switch uint16(entry) {
            case 0x0112: bytes[entry + (bigEndian ? 9 : 8)] = 6
            case 0x8825: bytes.replaceSubrange((entry + 8)..<(entry + 12), with: bigEndian ? [0x7F, 0, 0, 0] : [0, 0, 0, 0x7F])
            default: break
            }
        }
        return bytes
    }

    static func segment(_ marker: UInt8, _ payload: Data) -> Data {
        let length = payload.count + 2
        return Data([0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]) + payload
    }

    /// Photoshop resources: IPTC (caption 2:120, city 2:90) and an XMP copy (0x0424).
    static func photoshopPayload() -> Data {
        func dataset(_ number: UInt8, _ text: String) -> Data {
            Data([0x1C, 2, number, UInt8(text.utf8.count >> 8), UInt8(text.utf8.count & 0xFF)]) + Data(text.utf8)
        }
        func resource(_ id: UInt16, _ data: Data) -> Data {
            var bytes = Data("8BIM".utf8) + Data([UInt8(id >> 8), UInt8(id & 0xFF), 0, 0])
            let size = UInt32(data.count)
            bytes += Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]) + data
            if data.count % 2 == 1 { bytes.append(0) }
            return bytes
        }
        return Data("Photoshop 3.0\0".utf8) + resource(0x0404, dataset(120, "Boats at dawn") + dataset(90, "Oslo"))
            + resource(0x0424, Data(xmpWithGPS.utf8))
    }

    /// How many EXIF segments' IFD 0 hold a GPS IFD pointer (tag 0x8825).
    static func gpsPointers(in jpeg: Data) -> Int {
        JPEGSegments(jpeg).segments.filter { segment in
            let payload = jpeg.subdata(in: (segment.offset + 4)..<(segment.offset + segment.length))
            guard segment.marker == 0xE1, payload.starts(with: Data("Exif\0\0".utf8)) else { return false }
            return gpsPointerEntry(in: payload.dropFirst(6)) != nil
        }.count
    }

    /// The offset (from the TIFF header) of IFD 0's GPS pointer entry, if it has one.
    static func gpsPointerEntry(in tiff: Data) -> Int? {
        let bytes = [UInt8](tiff)
        let little = bytes.starts(with: [0x49, 0x49])
        func uint16(_ index: Int) -> Int { little ? Int(bytes[index]) | Int(bytes[index + 1]) << 8 : Int(bytes[index]) << 8 | Int(bytes[index + 1]) }
        let ifd0 = little ? uint16(4) | uint16(6) << 16 : uint16(4) << 16 | uint16(6)
        return (0..<uint16(ifd0)).map { ifd0 + 2 + 12 * $0 }.first { uint16($0) == 0x8825 }
    }

    /// The bytes from the first start-of-scan to the end of the image.
    static func scanData(_ jpeg: Data) -> Data? {
        guard let start = jpeg.range(of: Data([0xFF, 0xDA])), let end = jpeg.range(of: Data([0xFF, 0xD9]), options: .backwards) else { return nil }
        return jpeg.subdata(in: start.lowerBound..<end.upperBound)
    }
}

enum PNGFixtures {
    /// sunset.png with eXIf (harbour.jpg's EXIF, GPS included), iTXt XMP with exif:GPS*, a tEXt
    /// comment and a tIME, all with correct CRCs.
    static func sunsetWithEverything() throws -> Data {
        var bytes = try SampleFiles.bytes(SampleFiles.library("sunset.png"))
        let tiff = try EXIFBlock.tiff(fromJPEG: SampleFiles.library("harbour.jpg"))
        let added = chunk("eXIf", tiff) + chunk("iTXt", Data("XML:com.adobe.xmp\0\0\0\0\0".utf8) + Data(xmpWithGPS.utf8))
            + chunk("tEXt", Data("Comment\0a comment".utf8)) + chunk("tIME", Data([0x07, 0xE8, 6, 1, 12, 30, 45]))
        bytes.insert(contentsOf: added, at: 8 + 25)
        return bytes
    }

    static func chunk(_ type: String, _ data: Data) -> Data {
        let body = Data(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(CRC.checksum(body))
    }

    static func bigEndian(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    static func chunksHaveValidCRCs(_ png: Data) -> Bool {
        let bytes = [UInt8](png)
        var index = 8
        while index + 12 <= bytes.count {
            let length = bytes[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard index + 12 + length <= bytes.count else { return false }
            let body = bytes[(index + 4)..<(index + 8 + length)]
            let stored = bytes[(index + 8 + length)..<(index + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard CRC.checksum(Data(body)) == stored else { return false }
            index += 12 + length
        }
        return index == bytes.count
    }

    /// An independent CRC-32, bit by bit, so the stripper's table-driven one is checked against it.
    enum CRC {
        static func checksum(_ data: Data) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
    }
}

enum WebPFixtures {
    /// meadow.webp (a simple VP8 file) made extended: VP8X with the EXIF and XMP flags, the VP8
    /// chunk, an EXIF chunk (harbour.jpg's, GPS included) and an XMP chunk with exif:GPS*.
    static func meadowWithEverything() throws -> Data {
        let meadow = try SampleFiles.bytes(SampleFiles.library("meadow.webp"))
        let vp8 = meadow.subdata(in: 12..<meadow.count)
        let (width, height) = (400 - 1, 300 - 1)
        let vp8x = Data([0x08 | 0x04, 0, 0, 0, UInt8(width & 0xFF), UInt8(width >> 8), 0, UInt8(height & 0xFF), UInt8(height >> 8), 0])
        let tiff = try EXIFBlock.tiff(fromJPEG: SampleFiles.library("harbour.jpg"))
        let body = Data("WEBP".utf8) + chunk("VP8X", vp8x) + vp8 + chunk("EXIF", tiff) + chunk("XMP ", Data(xmpWithGPS.utf8))
        return Data("RIFF".utf8) + littleEndian(UInt32(body.count)) + body
    }

    static func chunk(_ fourCC: String, _ data: Data) -> Data {
        Data(fourCC.utf8) + littleEndian(UInt32(data.count)) + data + (data.count % 2 == 1 ? Data([0]) : Data())
    }

    static func littleEndian(_ value: UInt32) -> Data {
        Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)])
    }

    /// The VP8X flags' EXIF (0x08) and XMP (0x04) bits.
    static func flags(_ webP: Data) -> UInt8 { webP[20] & 0x0C }

    static func riffSizeMatches(_ webP: Data) -> Bool {
        Int(webP[4]) | Int(webP[5]) << 8 | Int(webP[6]) << 16 | Int(webP[7]) << 24 == webP.count - 8
    }
}

enum GIFFixtures {
    /// bounce.gif with an XMP application extension (exif:GPS*) and a comment before its first frame.
    static func bounceWithEverything() throws -> Data {
        var bytes = try SampleFiles.bytes(SampleFiles.library("bounce.gif"))
        let xmp = Data(xmpWithGPS.utf8)
        // XMP's "magic trailer" makes the packet readable as sub-blocks; here it is split into
        // proper sub-blocks of at most 255 bytes instead, which every reader accepts.
        var extensionBytes = Data([0x21, 0xFF, 11]) + Data("XMP DataXMP".utf8)
        var offset = 0
        while offset < xmp.count {
            let part = xmp.subdata(in: offset..<min(offset + 255, xmp.count))
            extensionBytes += Data([UInt8(part.count)]) + part
            offset += part.count
        }
        extensionBytes.append(0)
        let comment = Data([0x21, 0xFE, 9]) + Data("a comment".utf8) + Data([0])
        let firstBlock = try firstBlockOffset(bytes)
        bytes.insert(contentsOf: extensionBytes + comment, at: firstBlock)
        return bytes
    }

    /// Where the blocks start: after the header and global colour table.
    static func firstBlockOffset(_ gif: Data) throws -> Int {
        let flags = gif[10]
        return 13 + (flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0)
    }
}

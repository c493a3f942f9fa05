import Foundation
import LightboxProtocol

/// Removes metadata from a PNG (or APNG) by rewriting its chunk list; image data is copied byte
/// for byte and every rewritten chunk gets a new CRC.
///
/// - `.location`: the eXIf chunk loses its GPS IFD (`EXIFLocationRemover`); XMP (iTXt
///   `XML:com.adobe.xmp`) and ImageMagick's hex dumps of EXIF, XMP and IPTC (text chunks keyed
///   `Raw profile type …`) are dropped; with `.approximateLocation` the XMP holds only its
///   position on the grid (`XMPLocation.approximatedPacket`). Other text chunks stay.
/// - `.all`: eXIf, every text chunk (tEXt, zTXt, iTXt) and tIME go; an image not stored upright
///   keeps an eXIf holding only its orientation.
///
/// Both keep the chunks that say how to show the pixels (palette, transparency, ICC profile, sRGB,
/// gamma, chromaticities, bit depths, background, physical size, animation) and any critical chunk,
/// drop ancillary chunks Lightbox does not know (private chunks can hold anything), and end at
/// IEND.
enum PNGMetadataStripper {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let displayChunks: Set<String> = ["PLTE", "tRNS", "iCCP", "sRGB", "gAMA", "cHRM", "sBIT", "bKGD", "hIST", "sPLT",
                                             "pHYs", "cICP", "mDCv", "cLLi", "acTL", "fcTL", "fdAT", "IDAT", "IHDR", "IEND"]
    static let textChunks: Set<String> = ["tEXt", "zTXt", "iTXt"]

    static func strip(_ what: MetadataRemoval, _ bytes: Data, orientation: Int?, name: String) throws(MediaError) -> Data {
        let input = [UInt8](bytes)
        guard input.starts(with: signature) else { throw MediaError(.malformed, "\(name) does not start like a PNG") }
        var output = signature
        var index = signature.count
        while index + 8 <= input.count {
            let length = input[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: input[(index + 4)..<(index + 8)], as: UTF8.self)
            let end = index + 12 + length
            guard end <= input.count else {
                // Cut short: image data is kept as far as it goes (as the importer keeps such a file).
                if type == "IDAT" || type == "fdAT" { output += input[index...] }
                break
            }
            let data = Data(input[(index + 8)..<(index + 8 + length)])
            switch decide(type, data, what, orientation: orientation) {
            case .keep: output += input[index..<end]
            case .drop: break
            case .replace(let newData): output += chunk(type, [UInt8](newData))
            }
            index = end
            if type == "IEND" { break }
        }
        return Data(output)
    }

    static func decide(_ type: String, _ data: Data, _ what: MetadataRemoval, orientation: Int?) -> StripDecision {
        if displayChunks.contains(type) { return .keep }
        switch type {
        case "eXIf":
            if what == .all {
                return OrientationOnlyEXIF.tiff(orientation: orientation).map { .replace($0) } ?? .drop
            }
            guard let cleaned = EXIFLocationRemover.location(removedFrom: data, what) else {
                // EXIF that cannot be followed goes whole, but for the orientation.
                return OrientationOnlyEXIF.tiff(orientation: orientation).map { .replace($0) } ?? .drop
            }
            return cleaned == data ? .keep : .replace(cleaned)
        case _ where textChunks.contains(type):
            if what == .all { return .drop }
            let keyword = String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
            if keyword == "XML:com.adobe.xmp" {
                // Only an uncompressed iTXt packet is read; any other goes. The replacement is
                // uncompressed, with no language or translated keyword.
                guard type == "iTXt", let text = PNGReader.xmpText(ofITXt: data) else { return .drop }
                return XMPLocation.approximatedPacket(from: text, what).map { .replace(PNGReader.xmpKeyword + Data([0, 0, 0, 0]) + $0) } ?? .drop
            }
            return keyword.hasPrefix("Raw profile type") ? .drop : .keep
        case "tIME":
            return what == .all ? .drop : .keep
        default:
            // Bit 5 of the first letter clear (upper case): critical, a decoder needs it.
            let critical = type.utf8.first.map { $0 & 0x20 == 0 } ?? false
            return critical ? .keep : .drop
        }
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(CRC32.checksum(typeAndData))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

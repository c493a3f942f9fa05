import Foundation
import LightboxProtocol

/// Removes metadata from a WebP file by rewriting its RIFF chunk list; image data is copied byte
/// for byte, then the VP8X flags and the RIFF size are made to match what is left.
///
/// - `.location`: the EXIF chunk loses its GPS IFD (`EXIFLocationRemover`); the XMP chunk goes, or with
///   `.approximateLocation` holds only its position on the grid (`XMPLocation.approximatedPacket`).
/// - `.all`: EXIF and XMP go; an image not stored upright keeps an EXIF chunk holding only its
///   orientation.
///
/// Both keep what the image needs (VP8X, ICCP, ANIM, ANMF, ALPH, VP8, VP8L) and drop chunks WebP
/// does not define. A simple-format file (VP8 or VP8L only) cannot hold metadata; anything appended
/// after its image chunk is dropped.
enum WebPMetadataStripper {
    static let imageChunks: Set<String> = ["VP8X", "ICCP", "ANIM", "ANMF", "ALPH", "VP8 ", "VP8L"]
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    static func strip(_ what: MetadataRemoval, _ bytes: Data, orientation: Int?, name: String) throws(MediaError) -> Data {
        let input = [UInt8](bytes)
        guard input.count >= 20, input.starts(with: Array("RIFF".utf8)), input[8..<12].elementsEqual("WEBP".utf8) else {
            throw MediaError(.malformed, "\(name) does not start like a WebP file")
        }
        // The RIFF size may claim less than the file holds (trailing junk) but not more.
        let riffEnd = min(input.count, 8 + (input[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }))
        var chunks: [(fourCC: String, data: [UInt8])] = []
        var index = 12
        while index + 8 <= riffEnd {
            let fourCC = String(decoding: input[index..<(index + 4)], as: UTF8.self)
            let size = input[(index + 4)..<(index + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard size <= riffEnd - index - 8 else {
                throw MediaError(.malformed, "\(name) has a WebP \(fourCC) chunk that runs past the end of the file")
            }
            let data = Array(input[(index + 8)..<(index + 8 + size)])
            index += 8 + size + size % 2
            if chunks.isEmpty, fourCC != "VP8X" {  // simple format: the image chunk is all there is
                chunks.append((fourCC, data))
                break
            }
            switch decide(fourCC, Data(data), what, orientation: orientation) {
            case .keep: chunks.append((fourCC, data))
            case .drop: break
            case .replace(let newData): chunks.append((fourCC, [UInt8](newData)))
            }
        }
        guard !chunks.isEmpty else { throw MediaError(.malformed, "\(name) has no WebP image chunk") }
        if chunks[0].fourCC == "VP8X", !chunks[0].data.isEmpty {
            var flags = chunks[0].data[0] & ~(exifFlag | xmpFlag)
            if chunks.contains(where: { $0.fourCC == "EXIF" }) { flags |= exifFlag }
            if chunks.contains(where: { $0.fourCC == "XMP " }) { flags |= xmpFlag }
            chunks[0].data[0] = flags
        }
        var body = Array("WEBP".utf8)
        for chunk in chunks {
            body += Array(chunk.fourCC.utf8) + littleEndian(UInt32(chunk.data.count)) + chunk.data
            if chunk.data.count % 2 == 1 { body.append(0) }
        }
        return Data(Array("RIFF".utf8) + littleEndian(UInt32(body.count)) + body)
    }

    static func decide(_ fourCC: String, _ data: Data, _ what: MetadataRemoval, orientation: Int?) -> StripDecision {
        switch fourCC {
        case "EXIF":
            if what == .all {
                return OrientationOnlyEXIF.tiff(orientation: orientation).map { .replace($0) } ?? .drop
            }
            guard let cleaned = EXIFLocationRemover.location(removedFrom: data, what) else {
                // EXIF that cannot be followed goes whole, but for the orientation.
                return OrientationOnlyEXIF.tiff(orientation: orientation).map { .replace($0) } ?? .drop
            }
            return cleaned == data ? .keep : .replace(cleaned)
        case _ where imageChunks.contains(fourCC):
            return .keep
        case "XMP ":  // kept only as the approximate position it holds
            return XMPLocation.approximatedPacket(from: data, what).map { .replace($0) } ?? .drop
        default:  // chunks WebP does not define
            return .drop
        }
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}

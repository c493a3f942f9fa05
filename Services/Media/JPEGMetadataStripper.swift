import Foundation
import LightboxProtocol

/// Removes metadata from a JPEG by rewriting its segment list; the compressed image data is copied
/// byte for byte.
///
/// - `.location`: the EXIF APP1 loses its GPS IFD (`EXIFLocationRemover`; EXIF too broken to edit
///   safely is replaced by one holding only the orientation), XMP APP1 segments
///   (standard and extended) are dropped whole (with `.approximateLocation`, the standard one
///   holds only its position on the grid: `XMPLocation.approximatedPacket`), and Photoshop APP13 loses its EXIF and XMP copies
///   and IPTC place names. Comments, ICC profiles, IPTC captions and the camera's EXIF stay.
/// - `.all`: every APP1 (EXIF, XMP), APP3–APP13 and APP15 segment and every comment is dropped;
///   JFIF (APP0), ICC profiles (APP2 `ICC_PROFILE`) and Adobe's colour transform (APP14), which
///   decoders need, stay. An image not stored upright gets an EXIF block holding only its
///   orientation, so it still shows the right way up.
///
/// Both stop at the primary image's end (EOI): whatever follows, such as the extra images of an
/// MPF file (which carry their own EXIF) or a vendor's trailer, is dropped, and so is the MPF APP2
/// segment that indexes them.
enum JPEGMetadataStripper {
    static let iccSignature = Data("ICC_PROFILE\0".utf8)
    static let mpfSignature = Data("MPF\0".utf8)

    static func strip(_ what: MetadataRemoval, _ bytes: Data, orientation: Int?, name: String) throws(MediaError) -> Data {
        let input = [UInt8](bytes)
        guard input.count >= 4, input[0] == 0xFF, input[1] == 0xD8 else {
            throw MediaError(.malformed, "\(name) does not start like a JPEG")
        }
        var output: [UInt8] = [0xFF, 0xD8]
        var pendingOrientation = what == .all ? OrientationOnlyEXIF.tiff(orientation: orientation) : nil
        func insertOrientationIfDue(before marker: UInt8) {
            guard let tiff = pendingOrientation, marker != 0xE0 else { return }  // after JFIF, before anything else
            output += segment(0xE1, [UInt8](EXIFReader.blockHeader + tiff))
            pendingOrientation = nil
        }

        var index = 2
        while index < input.count {
            guard input[index] == 0xFF, index + 1 < input.count else {
                index += 1  // stray bytes between segments, skipped as libjpeg does
                continue
            }
            let marker = input[index + 1]
            switch marker {
            case 0xFF:  // fill byte
                index += 1
                continue
            case 0x00:
                index += 2
                continue
            case 0x01, 0xD0...0xD7:  // markers without a length
                output += input[index..<(index + 2)]
                index += 2
                continue
            case 0xD8:
                index += 2
                continue
            case 0xD9:  // end of the primary image: nothing after it is kept
                output += [0xFF, 0xD9]
                return Data(output)
            default:
                break
            }
            guard index + 4 <= input.count else { break }
            let length = Int(input[index + 2]) << 8 | Int(input[index + 3])
            guard length >= 2, index + 2 + length <= input.count else {
                throw MediaError(.malformed, "\(name) has a JPEG segment that runs past the end of the file at byte \(index)")
            }
            let payload = Data(input[(index + 4)..<(index + 2 + length)])
            let end = index + 2 + length
            insertOrientationIfDue(before: marker)
            if marker == 0xDA {
                // Start of scan: its header, then entropy-coded data up to the next real marker.
                output += input[index..<end]
                var search = end
                var scan = input.count  // unless a marker turns up: cut short inside the scan, keep what is there
                while let candidate = input[search...].firstIndex(of: 0xFF), candidate + 1 < input.count {
                    let next = input[candidate + 1]
                    if next != 0x00, next != 0xFF, !(0xD0...0xD7).contains(next) {
                        scan = candidate
                        break
                    }
                    search = candidate + 1
                }
                output += input[end..<scan]
                index = scan
                continue
            }
            switch decide(marker, payload, what, orientation: orientation) {
            case .keep: output += input[index..<end]
            case .drop: break
            case .replace(let newPayload): output += segment(marker, [UInt8](newPayload))
            }
            index = end
        }
        // No EOI: a file cut short. Its bytes are kept as they were, like the importer keeps it.
        return Data(output)
    }

    static func decide(_ marker: UInt8, _ payload: Data, _ what: MetadataRemoval, orientation: Int?) -> StripDecision {
        let all = what == .all
        switch marker {
        case 0xE1:
            if !all, payload.starts(with: JPEGReader.xmpSignature) {  // kept only as the approximate position it holds
                let packet = payload.dropFirst(JPEGReader.xmpSignature.count)
                return XMPLocation.approximatedPacket(from: Data(packet), what).map { .replace(JPEGReader.xmpSignature + $0) } ?? .drop
            }
            guard !all, payload.starts(with: EXIFReader.blockHeader) else { return .drop }  // extended XMP and anything else in APP1
            guard let cleaned = EXIFLocationRemover.location(removedFrom: payload, what, maximumSize: 65533) else {
                // EXIF that cannot be followed goes whole, but for the orientation.
                return OrientationOnlyEXIF.tiff(orientation: orientation).map { .replace(EXIFReader.blockHeader + $0) } ?? .drop
            }
            return cleaned == payload ? .keep : .replace(cleaned)
        case 0xE2:
            if payload.starts(with: iccSignature) { return .keep }
            if payload.starts(with: mpfSignature) { return .drop }
            return all ? .drop : .keep
        case 0xED:
            if all { return .drop }
            guard let cleaned = PhotoshopResources.removingLocation(fromPayload: payload) else { return .drop }
            return cleaned == payload ? .keep : .replace(cleaned)
        case 0xE0, 0xEE:  // JFIF, Adobe
            return .keep
        case 0xE3...0xEF, 0xFE:  // other application segments, comments
            return all ? .drop : .keep
        default:  // tables, frame headers, restart intervals…
            return .keep
        }
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }
}

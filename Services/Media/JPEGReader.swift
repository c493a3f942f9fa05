import Foundation

/// JPEG: pixel size from the frame header (SOFn), everything else from the first EXIF APP1 segment
/// through libexif. Walks the marker segments by seeking and stops at the frame header, so the
/// entropy-coded data is never read.
enum JPEGReader {
    static let xmpSignature = Data("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let jfifSignature = Data("JFIF\0".utf8)
    /// APP2 segments carry an ICC profile in pieces after this signature, a sequence number and a count.
    static let iccSignature = Data("ICC_PROFILE\0".utf8)
    /// How far past a segment's end to look for the next marker when a writer left stray bytes.
    static let resyncWindow = 64 * 1024

    static func read(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        var metadata = MediaMetadata(type: .jpeg)
        metadata.hasAlpha = false
        metadata.frameCount = 1
        let name = file.url.lastPathComponent
        var exifBlock: Data?
        var xmpPacket: Data?
        var profile = Data()
        var offset: UInt64 = 2
        segments: while offset + 4 <= file.size {
            let marker = try file.readExactly(at: offset, count: 2, what: "marker segments")
            guard marker[marker.startIndex] == 0xFF else {
                // libjpeg skips garbage between segments (a segment one byte longer than its
                // length says, for one); so does Lightbox, or such photos would not import.
                offset = try nextMarker(in: file, from: offset)
                continue
            }
            let code = marker[marker.startIndex + 1]
            switch code {
            case 0xFF:  // fill byte before a marker
                offset += 1
                continue
            case 0x01, 0xD0...0xD8:  // markers without a length
                offset += 2
                continue
            case 0xD9, 0xDA:  // end of image, or the scan began before any frame header
                break segments
            default:
                break
            }
            let length = UInt64(try file.readExactly(at: offset + 2, count: 2, what: "segment length").uint16BE(at: 0))
            guard length >= 2 else { throw MediaError(.malformed, "\(name) has a JPEG segment with an impossible length at byte \(offset)") }
            let payloadStart = offset + 4
            let payloadLength = Int(length - 2)
            if (0xC0...0xCF).contains(code), ![0xC4, 0xC8, 0xCC].contains(code) {
                let frame = try file.readExactly(at: payloadStart, count: 6, what: "frame header")
                metadata.depth = Int(frame[frame.startIndex])
                metadata.pixelHeight = Int(frame.uint16BE(at: 1))
                metadata.pixelWidth = Int(frame.uint16BE(at: 3))
                // 3 components are YCbCr or RGB, 4 CMYK or YCCK: ImageIO says RGB and CMYK.
                metadata.colorModel = [1: "Gray", 3: "RGB", 4: "CMYK"][frame[frame.startIndex + 5]]
                break segments
            }
            if code == 0xE0, payloadLength >= 12 {
                let jfif = try file.read(at: payloadStart, count: 12)
                if jfif.starts(with: jfifSignature), jfif.count == 12 {
                    let unit = jfif[jfif.startIndex + 7]
                    let perInch: Double? = unit == 1 ? 1 : unit == 2 ? 2.54 : nil
                    let (x, y) = (Double(jfif.uint16BE(at: 8)), Double(jfif.uint16BE(at: 10)))
                    if let perInch, x > 0, y > 0 {
                        metadata.dpiWidth = x * perInch
                        metadata.dpiHeight = y * perInch
                    }
                }
            }
            if code == 0xE2, payloadLength > iccSignature.count + 2 {
                let signature = try file.read(at: payloadStart, count: iccSignature.count)
                if signature == iccSignature {
                    profile += try file.read(at: payloadStart + UInt64(iccSignature.count + 2), count: payloadLength - iccSignature.count - 2)
                }
            }
            if code == 0xE1 {
                let signature = try file.read(at: payloadStart, count: min(payloadLength, xmpSignature.count))
                if signature.starts(with: EXIFReader.blockHeader), exifBlock == nil {
                    exifBlock = try file.read(at: payloadStart, count: payloadLength)
                } else if signature.starts(with: xmpSignature) {
                    metadata.hasXMP = true
                    if xmpPacket == nil {
                        xmpPacket = try file.read(at: payloadStart + UInt64(xmpSignature.count), count: payloadLength - xmpSignature.count)
                    }
                }
            }
            offset = payloadStart + UInt64(payloadLength)
        }
        guard let width = metadata.pixelWidth, let height = metadata.pixelHeight, width > 0, height > 0 else {
            throw MediaError(.malformed, "\(name) has no JPEG frame header with a pixel size (truncated file?)")
        }
        if let exifBlock { metadata.apply(EXIFReader.tags(inBlock: exifBlock)) }
        if let xmpPacket { metadata.applyXMPPosition(xmpPacket) }
        if !profile.isEmpty { metadata.profileName = ICCProfileDescription.read(profile) }
        return metadata
    }

    /// The offset of the next 0xFF that starts a marker (not a fill byte), within `resyncWindow`.
    static func nextMarker(in file: FileBytes, from offset: UInt64) throws(MediaError) -> UInt64 {
        let window = try file.read(at: offset, count: resyncWindow)
        var index = window.startIndex
        while index + 1 < window.endIndex {
            if window[index] == 0xFF, window[index + 1] != 0x00, window[index + 1] != 0xFF {
                return offset + UInt64(index - window.startIndex)
            }
            index += 1
        }
        throw MediaError(.malformed, "\(file.url.lastPathComponent) has a broken JPEG marker at byte \(offset)")
    }
}

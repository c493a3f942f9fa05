import Foundation

/// PNG and APNG: pixel size and alpha from IHDR (and tRNS), animation from acTL and the frames'
/// fcTL delays, EXIF from eXIf, XMP from its iTXt. Walks the chunk list by seeking: only chunk
/// headers and the small chunks above are read, never the image data.
enum PNGReader {
    static let xmpKeyword = Data("XML:com.adobe.xmp\0".utf8)
    /// libexif reads at most 64 KB of a block anyway; a larger eXIf length is a broken file.
    static let maximumEXIFLength: UInt64 = 1 << 20

    static func read(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        var metadata = MediaMetadata(type: .png)
        let name = file.url.lastPathComponent
        let header = try file.readExactly(at: 8, count: 25, what: "IHDR chunk")
        guard header.ascii(at: 4, count: 4) == "IHDR" else {
            throw MediaError(.malformed, "\(name) does not start with an IHDR chunk")
        }
        metadata.pixelWidth = Int(header.uint32BE(at: 8))
        metadata.pixelHeight = Int(header.uint32BE(at: 12))
        let colorType = header[header.startIndex + 17]
        metadata.hasAlpha = colorType == 4 || colorType == 6  // grey + alpha, RGBA
        metadata.colorModel = colorType == 0 || colorType == 4 ? "Gray" : "RGB"
        // A palette's samples are its 8-bit RGB entries, whatever the index width (as ImageIO says).
        metadata.depth = colorType == 3 ? 8 : Int(header[header.startIndex + 16])
        metadata.frameCount = 1
        var animationFrames: Int?
        var plays: Int?
        var delays: [Double] = []
        var hasProfile = false
        var offset: UInt64 = 8
        while offset + 8 <= file.size {
            let chunk = try file.readExactly(at: offset, count: 8, what: "chunk list")
            let length = UInt64(chunk.uint32BE(at: 0))
            let type = chunk.ascii(at: 4, count: 4)
            let content = offset + 8
            switch type {
            case "tRNS":
                metadata.hasAlpha = true
            case "pHYs":
                let density = try file.readExactly(at: content, count: 9, what: "pHYs chunk")
                let (x, y) = (Double(density.uint32BE(at: 0)), Double(density.uint32BE(at: 4)))
                if density[density.startIndex + 8] == 1, x > 0, y > 0 {  // pixels per metre
                    metadata.dpiWidth = (x * 0.0254).rounded()
                    metadata.dpiHeight = (y * 0.0254).rounded()
                }
            case "sRGB":
                metadata.profileName = metadata.profileName ?? "sRGB IEC61966-2.1"
            case "iCCP":
                hasProfile = true
            case "acTL":
                let control = try file.readExactly(at: content, count: 8, what: "acTL chunk")
                animationFrames = Int(control.uint32BE(at: 0))
                plays = Int(control.uint32BE(at: 4))
            case "fcTL":
                let control = try file.readExactly(at: content, count: 26, what: "fcTL chunk")
                let numerator = Double(control.uint16BE(at: 20))
                let denominator = Double(control.uint16BE(at: 22))
                delays.append(numerator / (denominator == 0 ? 100 : denominator))  // 0 means 1/100 s units
            case "eXIf" where length <= maximumEXIFLength:
                metadata.apply(EXIFReader.tags(inTIFF: try file.readExactly(at: content, count: Int(length), what: "eXIf chunk")))
            case "iTXt":
                let keyword = try file.read(at: content, count: xmpKeyword.count)
                if keyword == xmpKeyword {
                    metadata.hasXMP = true
                    if length <= maximumEXIFLength,
                       let packet = Self.xmpText(ofITXt: try file.readExactly(at: content, count: Int(length), what: "iTXt chunk")) {
                        metadata.applyXMPPosition(packet)
                    }
                }
            case "IEND":
                offset = file.size
                continue
            default:
                break
            }
            offset = content + length + 4  // data and CRC
        }
        if hasProfile, let profile = EmbeddedICCProfile.read(file.url) {
            metadata.profileName = ICCProfileDescription.read(profile)
        }
        if let animationFrames, animationFrames > 1 {
            metadata.isAnimated = true
            metadata.frameCount = animationFrames
            metadata.loopCount = plays
            metadata.firstFrameDelay = delays.first
            metadata.duration = delays.reduce(0, +)
        }
        return metadata
    }

    /// The text of an uncompressed iTXt chunk's data: after its keyword, NUL, compression flag
    /// (0) and method, language tag, NUL, translated keyword and NUL. Nil for a compressed one.
    static func xmpText(ofITXt data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard let keywordEnd = bytes.firstIndex(of: 0), keywordEnd + 3 <= bytes.count, bytes[keywordEnd + 1] == 0,
              let language = bytes[(keywordEnd + 3)...].firstIndex(of: 0),
              let translated = bytes[(language + 1)...].firstIndex(of: 0) else { return nil }
        return Data(bytes[(translated + 1)...])
    }
}

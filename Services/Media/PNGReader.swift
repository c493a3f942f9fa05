import Foundation

/// PNG: pixel size from IHDR; an `acTL` chunk before the image data makes it an animated PNG.
enum PNGReader {
    static func read(_ file: FileBytes) throws -> MediaMetadata {
        var metadata = MediaMetadata(type: .png)
        let header = try file.readExactly(at: 8, count: 25, what: "IHDR chunk")
        guard header.ascii(at: 4, count: 4) == "IHDR" else {
            throw MediaError(.malformed, "\(file.url.lastPathComponent) does not start with an IHDR chunk")
        }
        metadata.pixelWidth = Int(header.uint32BE(at: 8))
        metadata.pixelHeight = Int(header.uint32BE(at: 12))
        var offset: UInt64 = 8
        while offset + 8 <= file.size {
            let chunk = try file.readExactly(at: offset, count: 8, what: "chunk list")
            let type = chunk.ascii(at: 4, count: 4)
            if type == "acTL" {
                let control = try file.readExactly(at: offset + 8, count: 8, what: "acTL chunk")
                metadata.isAnimated = true
                metadata.frameCount = Int(control.uint32BE(at: 0))
            }
            if type == "IDAT" || type == "IEND" { break }
            offset += 12 + UInt64(chunk.uint32BE(at: 0))
        }
        return metadata
    }
}

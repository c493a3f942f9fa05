import Foundation

/// GIF: logical screen size, frames and their delays by walking the blocks, without decoding LZW data.
enum GIFReader {
    static func read(_ file: FileBytes) throws -> MediaMetadata {
        var metadata = MediaMetadata(type: .gif)
        let data = try file.read(at: 0, count: Int(min(file.size, 256 << 20)))
        let name = file.url.lastPathComponent
        guard data.count >= 13 else { throw MediaError(.malformed, "\(name) ends inside its GIF header") }
        metadata.pixelWidth = Int(data.uint16LE(at: 6))
        metadata.pixelHeight = Int(data.uint16LE(at: 8))
        var index = 13
        let flags = data[data.startIndex + 10]
        if flags & 0x80 != 0 { index += 3 << (Int(flags & 0x07) + 1) }
        var frames = 0
        var centiseconds = 0
        func byte(_ at: Int) throws -> UInt8 {
            guard at < data.count else { throw MediaError(.malformed, "\(name) ends inside a GIF block (truncated file?)") }
            return data[data.startIndex + at]
        }
        func skipSubBlocks(_ start: Int) throws -> Int {
            var at = start
            while true {
                let size = Int(try byte(at))
                at += 1 + size
                if size == 0 { return at }
            }
        }
        loop: while true {
            switch try byte(index) {
            case 0x2C:  // image descriptor
                frames += 1
                let localFlags = try byte(index + 9)
                index += 10
                if localFlags & 0x80 != 0 { index += 3 << (Int(localFlags & 0x07) + 1) }
                index = try skipSubBlocks(index + 1)  // after the LZW minimum code size
            case 0x21:  // extension
                if try byte(index + 1) == 0xF9, try byte(index + 2) >= 4 {
                    centiseconds += Int(try byte(index + 4)) | Int(try byte(index + 5)) << 8
                }
                index = try skipSubBlocks(index + 2)
            case 0x3B:
                break loop
            default:
                // Many real GIFs carry junk after the last frame; what came before still counts.
                guard frames > 0 else { throw MediaError(.malformed, "\(name) has an unknown GIF block") }
                break loop
            }
        }
        guard frames > 0 else { throw MediaError(.malformed, "\(name) has no GIF frames") }
        metadata.frameCount = frames
        metadata.isAnimated = frames > 1
        if frames > 1 { metadata.duration = Double(centiseconds) / 100 }
        return metadata
    }
}

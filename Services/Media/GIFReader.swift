import Foundation

/// GIF: logical screen size, frames, their delays, transparency and the loop count, by walking the
/// blocks without decoding any LZW data.
enum GIFReader {
    static func read(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        var metadata = MediaMetadata(type: .gif)
        let name = file.url.lastPathComponent
        let mapped = try MappedFile(file)
        func byte(_ index: Int) throws(MediaError) -> UInt8 {
            try mapped.byte(at: index, in: "\(name) ends inside a GIF block")
        }
        func uint16(_ index: Int) throws(MediaError) -> Int { Int(try byte(index)) | Int(try byte(index + 1)) << 8 }
        /// Image data and extensions are chains of sub-blocks, each led by its size; 0 ends a chain.
        func skipSubBlocks(_ start: Int) throws(MediaError) -> Int {
            var index = start
            while true {
                let size = Int(try byte(index))
                index += 1 + size
                if size == 0 { return index }
            }
        }
        func matches(_ text: String, at index: Int) -> Bool {
            let expected = Array(text.utf8)
            return index + expected.count <= mapped.bytes.count && mapped.bytes[index..<(index + expected.count)].elementsEqual(expected)
        }

        guard mapped.bytes.count >= 13 else { throw MediaError(.malformed, "\(name) ends inside its GIF header") }
        metadata.pixelWidth = try uint16(6)
        metadata.pixelHeight = try uint16(8)
        var index = 13
        let screenFlags = try byte(10)
        if screenFlags & 0x80 != 0 { index += 3 << (Int(screenFlags & 0x07) + 1) }  // global colour table

        var frames = 0
        var delays: [Int] = []  // centiseconds, one per frame
        var pendingDelay = 0  // a graphic control extension applies to the next image
        var hasTransparency = false
        loop: while true {
            do throws(MediaError) {
                switch try byte(index) {
                case 0x2C:  // image descriptor
                    frames += 1
                    delays.append(pendingDelay)
                    pendingDelay = 0
                    let imageFlags = try byte(index + 9)
                    index += 10
                    if imageFlags & 0x80 != 0 { index += 3 << (Int(imageFlags & 0x07) + 1) }  // local colour table
                    index = try skipSubBlocks(index + 1)  // after the LZW minimum code size
                case 0x21:  // extension
                    let label = try byte(index + 1)
                    if label == 0xF9, try byte(index + 2) >= 4 {  // graphic control
                        let controlFlags = try byte(index + 3)
                        hasTransparency = hasTransparency || controlFlags & 0x01 != 0
                        pendingDelay = try uint16(index + 4)
                    } else if label == 0xFF, try byte(index + 2) == 11 {  // application
                        let isLoopExtension = matches("NETSCAPE2.0", at: index + 3) || matches("ANIMEXTS1.0", at: index + 3)
                        if isLoopExtension, try byte(index + 14) >= 3, try byte(index + 15) == 1 {
                            metadata.loopCount = try uint16(index + 16)
                        } else if matches("XMP DataXMP", at: index + 3) {
                            metadata.hasXMP = true
                        }
                    }
                    index = try skipSubBlocks(index + 2)
                case 0x3B:  // trailer
                    break loop
                default:
                    // Many real GIFs carry junk after the last frame; what came before still counts.
                    guard frames > 0 else { throw MediaError(.malformed, "\(name) has an unknown GIF block") }
                    break loop
                }
            } catch {
                // A file cut short after an image descriptor still has that frame, as browsers show
                // it (like a JPEG whose scan is cut short); cut short before any, it is broken.
                guard frames > 0 else { throw error }
                break loop
            }
        }
        guard frames > 0 else { throw MediaError(.malformed, "\(name) has no GIF frames") }
        metadata.frameCount = frames
        metadata.hasAlpha = hasTransparency
        metadata.colorModel = "RGB"  // palette entries are RGB, 8 bits each (as ImageIO says)
        metadata.depth = 8
        metadata.isAnimated = frames > 1
        if frames > 1 {
            metadata.duration = Double(delays.reduce(0, +)) / 100
            metadata.firstFrameDelay = Double(delays[0]) / 100
        } else {
            metadata.loopCount = nil  // a still image does not loop, whatever its extension says
        }
        return metadata
    }
}

import Foundation

/// A GIF file's blocks, found by walking the sub-block chains without decoding any LZW data: the
/// header (signature, logical screen and global colour table), then images and extensions, each
/// with its byte range. The metadata stripper keeps or drops blocks by range; the renderer's
/// decompression guard reads the frames' sizes.
struct GIFStructure {
    struct Block {
        enum Kind: Equatable {
            /// An image descriptor with its colour table and image data.
            case image(left: Int, top: Int, width: Int, height: Int)
            /// An extension by label (0xF9 graphic control, 0xFE comment, 0x01 plain text, 0xFF
            /// application, with its 11-byte identifier such as `NETSCAPE2.0` or `XMP DataXMP`).
            case `extension`(label: UInt8, application: String?)
        }

        var kind: Kind
        var range: Range<Int>
        /// False for the last block of a file cut short inside it (its range runs to the end).
        var isComplete = true
    }

    let canvasWidth: Int
    let canvasHeight: Int
    /// Signature, logical screen descriptor and global colour table.
    let header: Range<Int>
    let blocks: [Block]

    /// `bytes` must be indexed from 0 (as `Data(contentsOf:)` is). Throws `malformed` for a file
    /// with no complete header; a file cut short or followed by junk keeps the blocks before that,
    /// as GIFReader and browsers do.
    init(_ bytes: Data, name: String) throws(MediaError) {
        func byte(_ index: Int) throws(MediaError) -> UInt8 {
            guard index >= 0, index < bytes.count else { throw MediaError(.malformed, "\(name) ends inside a GIF block") }
            return bytes[index]
        }
        func uint16(_ index: Int) throws(MediaError) -> Int { Int(try byte(index)) | Int(try byte(index + 1)) << 8 }
        func skipSubBlocks(_ start: Int) throws(MediaError) -> Int {
            var index = start
            while true {
                let size = Int(try byte(index))
                index += 1 + size
                if size == 0 {
                    guard index <= bytes.count else { throw MediaError(.malformed, "\(name) ends inside a GIF block") }
                    return index
                }
            }
        }

        guard bytes.count >= 13, bytes.prefix(3).elementsEqual("GIF".utf8) else {
            throw MediaError(.malformed, "\(name) ends inside its GIF header")
        }
        canvasWidth = try uint16(6)
        canvasHeight = try uint16(8)
        var index = 13
        let screenFlags = try byte(10)
        if screenFlags & 0x80 != 0 { index += 3 << (Int(screenFlags & 0x07) + 1) }
        guard index <= bytes.count else { throw MediaError(.malformed, "\(name) ends inside its global colour table") }
        header = 0..<index

        var blocks: [Block] = []
        walk: while index < bytes.count {
            let start = index
            // Known as soon as the block's first bytes are read, so a block cut short keeps it.
            var kind: Block.Kind?
            do throws(MediaError) {
                switch try byte(index) {
                case 0x2C:
                    kind = .image(left: try uint16(index + 1), top: try uint16(index + 3),
                                  width: try uint16(index + 5), height: try uint16(index + 7))
                    let flags = try byte(index + 9)
                    index += 10
                    if flags & 0x80 != 0 { index += 3 << (Int(flags & 0x07) + 1) }
                    index = try skipSubBlocks(index + 1)
                case 0x21:
                    let label = try byte(index + 1)
                    kind = .extension(label: label, application: nil)
                    if label == 0xFF, try byte(index + 2) == 11, index + 14 <= bytes.count {
                        kind = .extension(label: label, application: String(decoding: bytes[(index + 3)..<(index + 14)], as: UTF8.self))
                    }
                    index = try skipSubBlocks(index + 2)
                default:  // the trailer, or junk after the last block
                    break walk
                }
            } catch {
                // Cut short inside this block: keep what came before, and this block's bytes so far
                // when its introducer says what it is.
                if let kind { blocks.append(Block(kind: kind, range: start..<bytes.count, isComplete: false)) }
                break walk
            }
            if let kind { blocks.append(Block(kind: kind, range: start..<index)) }
        }
        self.blocks = blocks
    }

    /// The area a decoder has to allocate: the canvas grown to hold every frame, since decoders
    /// such as libnsgif enlarge the canvas for a frame that does not fit in it.
    var decodedArea: (width: Int, height: Int) {
        var width = canvasWidth
        var height = canvasHeight
        for block in blocks {
            guard case let .image(left, top, frameWidth, frameHeight) = block.kind else { continue }
            width = max(width, left + frameWidth)
            height = max(height, top + frameHeight)
        }
        return (width, height)
    }
}

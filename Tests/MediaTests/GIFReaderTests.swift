import Foundation
import Media
import Testing

@Suite struct GIFReaderTests {
    @Test func bounceIsTenFramesLoopingForever() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("bounce.gif"))
        #expect(metadata.pixelWidth == 80)
        #expect(metadata.pixelHeight == 60)
        #expect(metadata.isAnimated)
        #expect(metadata.frameCount == 10)
        #expect(metadata.loopCount == 0)
        #expect(metadata.duration == 0.8)
        #expect(metadata.firstFrameDelay == 0.08)
        #expect(metadata.hasAlpha == false)
    }

    @Test func delaysLoopCountAndTransparencyComeFromTheBlocks() throws {
        let metadata = try read(TinyGIF.twoFrames, named: "two-frames.gif")
        #expect(metadata.pixelWidth == 2)
        #expect(metadata.pixelHeight == 2)
        #expect(metadata.frameCount == 2)
        #expect(metadata.loopCount == 3)
        #expect(metadata.firstFrameDelay == 0.25)
        #expect(metadata.duration == 0.75)
        #expect(metadata.hasAlpha == true)
        #expect(metadata.hasXMP == false)
    }

    @Test func aFileCutInsideItsFirstFrameStillHasThatFrame() throws {
        let metadata = try read(TinyGIF.twoFrames.prefix(TinyGIF.firstImageData + 1), named: "cut-in-frame.gif")
        #expect(metadata.frameCount == 1)
        #expect(!metadata.isAnimated)
        #expect(metadata.loopCount == nil)
    }

    @Test func aFileCutBeforeAnyFrameIsMalformed() throws {
        let bytes = TinyGIF.twoFrames.prefix(TinyGIF.firstImageDescriptor - 2)
        try SampleFiles.withTemporaryFile(bytes, named: "cut-before-frame.gif") { url in
            #expect(throws: MediaError.self) { try MetadataReader.read(fileAt: url) }
        }
    }

    private func read(_ bytes: Data, named name: String) throws -> MediaMetadata {
        try SampleFiles.withTemporaryFile(bytes, named: name) { try MetadataReader.read(fileAt: $0) }
    }
}

/// A hand-made 2×2 GIF: loop count 3, frame delays 0.25 s and 0.5 s, a transparent colour. The LZW
/// data is not valid: the reader never decodes it.
enum TinyGIF {
    static let header = Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
    static let loop: [UInt8] = [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 3, 0, 0]
    static func control(delay: UInt8, transparent: Bool) -> [UInt8] { [0x21, 0xF9, 4, transparent ? 1 : 0, delay, 0, 0, 0] }
    static let image: [UInt8] = [0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0] + [2, 3, 0x44, 0x01, 0x00, 0]

    static let firstImageDescriptor = header.count + loop.count + 8
    static let firstImageData = firstImageDescriptor + 11
    static let twoFrames = Data(header + loop + control(delay: 25, transparent: true) + image
        + control(delay: 50, transparent: false) + image + [0x3B])
}

import Foundation
import Media
import Testing

@Suite struct WebPReaderTests {
    @Test func spinnerIsAnEightFrameAnimationLoopingForever() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("spinner.webp"))
        #expect(metadata.pixelWidth == 64)
        #expect(metadata.pixelHeight == 64)
        #expect(metadata.isAnimated)
        #expect(metadata.frameCount == 8)
        #expect(metadata.loopCount == 0)
        #expect(metadata.duration == 0.8)
        #expect(metadata.firstFrameDelay == 0.1)
        #expect(metadata.hasAlpha == true)
    }

    @Test func meadowIsALossyStillWithoutAlpha() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("meadow.webp"))
        #expect(metadata.pixelWidth == 400)
        #expect(metadata.pixelHeight == 300)
        #expect(metadata.isLossless == false)
        #expect(metadata.hasAlpha == false)
        #expect(!metadata.isAnimated)
        #expect(metadata.frameCount == 1)
        #expect(metadata.loopCount == nil)
    }

    /// WebP's EXIF chunk holds bare TIFF data; the reader adds the `Exif\0\0` libexif expects, and
    /// copes with writers that already put it there.
    @Test(arguments: [false, true])
    func anEXIFChunkIsReadWithOrWithoutItsHeader(alreadyPrefixed: Bool) throws {
        let tiff = try EXIFBlock.tiff(fromJPEG: SampleFiles.library("harbour.jpg"))
        let exif = alreadyPrefixed ? Data("Exif\0\0".utf8) + tiff : tiff
        let bytes = try ExtendedWebP.meadow(withChunks: [("EXIF", exif), ("XMP ", Data("<x:xmpmeta/>".utf8))])
        let metadata = try SampleFiles.withTemporaryFile(bytes, named: "meadow-exif.webp") { try MetadataReader.read(fileAt: $0) }
        #expect(metadata.pixelWidth == 400)
        #expect(metadata.cameraMake == "Lightbox")
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(metadata.isoSpeed == 100)
        #expect(metadata.location.map { abs($0.latitude - 59.9139) < 1e-4 } == true)
        #expect(metadata.hasEXIF)
        #expect(metadata.hasXMP)
    }

    @Test func anAnimationCutShortIsMalformed() throws {
        let bytes = try SampleFiles.bytes(SampleFiles.library("spinner.webp"))
        try SampleFiles.withTemporaryFile(bytes.prefix(bytes.count / 2), named: "half-spinner.webp") { url in
            #expect(throws: MediaError.self) { try MetadataReader.read(fileAt: url) }
        }
    }
}

/// Builds an extended (VP8X) WebP around meadow.webp's VP8 bitstream, with extra chunks.
enum ExtendedWebP {
    static func meadow(withChunks extra: [(fourCC: String, data: Data)]) throws -> Data {
        let simple = try SampleFiles.bytes(SampleFiles.library("meadow.webp"))
        let bitstream = simple.subdata(in: 12..<simple.count)  // the "VP8 " chunk
        var flags: UInt8 = 0
        if extra.contains(where: { $0.fourCC == "EXIF" }) { flags |= 0x08 }
        if extra.contains(where: { $0.fourCC == "XMP " }) { flags |= 0x04 }
        let (width, height) = (400 - 1, 300 - 1)
        let canvas = Data([flags, 0, 0, 0, UInt8(width & 0xFF), UInt8(width >> 8), 0, UInt8(height & 0xFF), UInt8(height >> 8), 0])
        var body = Data("WEBP".utf8) + chunk("VP8X", canvas) + bitstream
        for (fourCC, data) in extra { body += chunk(fourCC, data) }
        return Data("RIFF".utf8) + littleEndian(UInt32(body.count)) + body
    }

    static func chunk(_ fourCC: String, _ data: Data) -> Data {
        Data(fourCC.utf8) + littleEndian(UInt32(data.count)) + data + (data.count % 2 == 1 ? Data([0]) : Data())
    }

    static func littleEndian(_ value: UInt32) -> Data {
        Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)])
    }
}

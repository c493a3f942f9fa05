import Foundation
import Media
import Testing

@Suite struct PNGReaderTests {
    @Test func sunsetHasAlphaAndOneFrame() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("sunset.png"))
        #expect(metadata.pixelWidth == 320)
        #expect(metadata.pixelHeight == 200)
        #expect(metadata.hasAlpha == true)
        #expect(!metadata.isAnimated)
        #expect(metadata.frameCount == 1)
        #expect(!metadata.hasEXIF)
    }

    @Test func anEXIfChunkIsReadThroughLibexif() throws {
        // sunset.png with harbour.jpg's EXIF (bare TIFF, as PNG's eXIf holds it) after IHDR.
        var bytes = try SampleFiles.bytes(SampleFiles.library("sunset.png"))
        let tiff = try EXIFBlock.tiff(fromJPEG: SampleFiles.library("harbour.jpg"))
        let length = UInt32(tiff.count)
        let chunk = Data([UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            + Data("eXIf".utf8) + tiff + Data([0, 0, 0, 0])  // CRC: not checked by readers of metadata
        bytes.insert(contentsOf: chunk, at: 8 + 25)
        let metadata = try SampleFiles.withTemporaryFile(bytes, named: "exif.png") { try MetadataReader.read(fileAt: $0) }
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(metadata.dateTimeOriginal == "2024:06:01 12:30:45")
        #expect(metadata.pixelWidth == 320)
    }
}

/// EXIF blocks taken from the sample JPEGs, to put into other formats.
enum EXIFBlock {
    /// The TIFF data of a JPEG's EXIF APP1 segment (after `Exif\0\0`).
    static func tiff(fromJPEG url: URL) throws -> Data {
        let bytes = try Data(contentsOf: url)
        let segment = try #require(JPEGSegments(bytes).segments.first { $0.marker == 0xE1 })
        return bytes.subdata(in: (segment.offset + 4 + 6)..<(segment.offset + segment.length))
    }
}

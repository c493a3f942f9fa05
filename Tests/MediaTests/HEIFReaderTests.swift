import Foundation
import Media
import Testing

@Suite struct HEIFReaderTests {
    /// Samples/extra/harbour.heic is harbour.jpg through heif-enc, which copies the EXIF.
    @Test func harbourHEICCarriesItsSizeAndEXIF() throws {
        let url = SampleFiles.extra("harbour.heic")
        #expect(try ContentSniffer.sniff(fileAt: url) == .heic)
        let metadata = try MetadataReader.read(fileAt: url)
        #expect(metadata.type == .heic)
        #expect(metadata.pixelWidth == 640)
        #expect(metadata.pixelHeight == 480)
        #expect(metadata.hasAlpha == false)
        #expect(metadata.frameCount == 1)
        #expect(metadata.cameraMake == "Lightbox")
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(metadata.dateTimeOriginal == "2024:06:01 12:30:45")
        #expect(metadata.exposureTime == 1.0 / 250)
        #expect(metadata.fNumber == 2.8)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 59.9139) < 1e-4)
        #expect(abs(location.longitude - 10.7522) < 1e-4)
        #expect(location.altitude == 12)
    }

    @Test func aHEICCutInsideItsHeadersIsMalformed() throws {
        let bytes = try SampleFiles.bytes(SampleFiles.extra("harbour.heic"))
        try SampleFiles.withTemporaryFile(bytes.prefix(120), named: "cut.heic") { url in
            #expect(throws: MediaError.self) { try MetadataReader.read(fileAt: url) }
        }
    }
}

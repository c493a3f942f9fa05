import Foundation
import Media
import Testing

@Suite struct JPEGReaderTests {
    @Test func harbourCarriesItsCameraExposureAndPlace() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("harbour.jpg"))
        #expect(metadata.pixelWidth == 640)
        #expect(metadata.pixelHeight == 480)
        #expect(metadata.cameraMake == "Lightbox")
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(metadata.dateTimeOriginal == "2024:06:01 12:30:45")
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2024-06-01T12:30:45Z"))
        #expect(metadata.exposureTime == 1.0 / 250)
        #expect(metadata.fNumber == 2.8)
        #expect(metadata.isoSpeed == 100)
        #expect(metadata.orientation == 1)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 59.9139) < 1e-4)
        #expect(abs(location.longitude - 10.7522) < 1e-4)
        #expect(location.altitude == 12)
        #expect(metadata.hasEXIF)
        #expect(metadata.hasAlpha == false)
        #expect(metadata.frameCount == 1)
    }

    @Test func portraitKeepsItsStoredSizeAndReportsOrientation() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("portrait.jpg"))
        #expect(metadata.orientation == 6)
        #expect(metadata.pixelWidth == 300)
        #expect(metadata.pixelHeight == 400)
        #expect(metadata.cameraModel == "Sample Camera 2")
        #expect(metadata.location == nil)
    }

    @Test func strayBytesBetweenSegmentsAreSkippedLikeLibjpegDoes() throws {
        var bytes = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let secondSegment = JPEGSegments(bytes).segments[1].offset
        bytes.insert(0x00, at: secondSegment)
        let metadata = try SampleFiles.withTemporaryFile(bytes, named: "stray-byte.jpg") { try MetadataReader.read(fileAt: $0) }
        #expect(metadata.pixelWidth == 640)
        #expect(metadata.cameraMake == "Lightbox")
    }

    @Test func exifAfterAnXMPSegmentIsStillFound() throws {
        var bytes = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let xmp = Data("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
        bytes.insert(contentsOf: [0xFF, 0xE1, UInt8((xmp.count + 2) >> 8), UInt8((xmp.count + 2) & 0xFF)] + xmp, at: 2)
        let metadata = try SampleFiles.withTemporaryFile(bytes, named: "xmp-first.jpg") { try MetadataReader.read(fileAt: $0) }
        #expect(metadata.hasXMP)
        #expect(metadata.cameraModel == "Sample Camera 1")
    }

    @Test func aJPEGWithoutEXIFHasNoneAndIsNoError() throws {
        let original = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let exif = try #require(JPEGSegments(original).segments.first { $0.marker == 0xE1 })
        var bytes = original
        bytes.removeSubrange(exif.offset..<(exif.offset + exif.length))
        let metadata = try SampleFiles.withTemporaryFile(bytes, named: "no-exif.jpg") { try MetadataReader.read(fileAt: $0) }
        #expect(!metadata.hasEXIF)
        #expect(metadata.cameraMake == nil)
        #expect(metadata.creationDate == nil)
        #expect(metadata.pixelWidth == 640)
    }

    @Test func aSegmentLongerThanTheFileIsMalformed() throws {
        // The APP1 length points past the end: there is no frame header to find.
        let bytes = Data([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xF0] + Array("Exif\0\0II*\0".utf8) + [UInt8](repeating: 0, count: 64))
        try SampleFiles.withTemporaryFile(bytes, named: "overrun.jpg") { url in
            #expect(throws: MediaError.self) { try MetadataReader.read(fileAt: url) }
        }
    }
}

/// The marker segments of a JPEG before its first scan, by offset (at the 0xFF) and total length.
struct JPEGSegments {
    struct Segment {
        var marker: UInt8
        var offset: Int
        var length: Int
    }

    var segments: [Segment] = []

    init(_ data: Data) {
        var offset = 2
        while offset + 4 <= data.count, data[offset] == 0xFF, data[offset + 1] != 0xDA {
            let length = 2 + (Int(data[offset + 2]) << 8 | Int(data[offset + 3]))
            segments.append(Segment(marker: data[offset + 1], offset: offset, length: length))
            offset += length
        }
    }
}

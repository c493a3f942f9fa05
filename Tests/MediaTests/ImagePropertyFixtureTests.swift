import Foundation
import LightboxProtocol
import Media
import Testing

/// ColorModel, Depth, DPI, ProfileName and the EXIF digitized date and zone offsets, as ImageIO
/// names them, on the small fixtures in Samples/properties (see its README for how they were made).
@Suite struct ImagePropertyFixtureTests {
    static func properties(_ name: String) throws -> [String: JSONValue] {
        try MetadataReader.read(fileAt: SampleFiles.folder.appendingPathComponent("properties/\(name)")).imageProperties
    }

    @Test func aGrayJPEGIsGray() throws {
        let properties = try Self.properties("gray.jpg")
        #expect(properties["ColorModel"] == .string("Gray"))
        #expect(properties["Depth"] == .number(8))
        #expect(properties["DPIWidth"] == .number(72))
    }

    @Test func aFourComponentJPEGIsCMYK() throws {
        let properties = try Self.properties("cmyk.jpg")
        #expect(properties["ColorModel"] == .string("CMYK"))
        #expect(properties["Depth"] == .number(8))
    }

    @Test func aPNGGivesItsDensityAndProfileName() throws {
        let properties = try Self.properties("profiled.png")
        #expect(properties["ColorModel"] == .string("RGB"))
        #expect(properties["Depth"] == .number(8))
        #expect(properties["DPIWidth"] == .number(300))
        #expect(properties["DPIHeight"] == .number(300))
        #expect(properties["ProfileName"] == .string("sRGB"))
    }

    @Test func exifGivesTheDigitizedDateOffsetsAndResolution() throws {
        let properties = try Self.properties("dated.jpg")
        #expect(properties["ColorModel"] == .string("RGB"))
        #expect(properties["DPIWidth"] == .number(300))
        #expect(properties["DPIHeight"] == .number(300))
        let exif = try #require(properties["{Exif}"])
        #expect(exif["DateTimeOriginal"] == .string("2024:06:01 12:30:45"))
        #expect(exif["DateTimeDigitized"] == .string("2024:06:01 12:30:46"))
        #expect(exif["OffsetTime"] == .string("+02:00"))
        #expect(exif["OffsetTimeOriginal"] == .string("+02:00"))
        #expect(exif["OffsetTimeDigitized"] == .string("+01:00"))
    }

    @Test func everyImageFormatHasAColorModelAndDepth() throws {
        for name in ["library/harbour.jpg", "library/sunset.png", "library/bounce.gif", "library/meadow.webp", "extra/harbour.heic"] {
            let properties = try MetadataReader.read(fileAt: SampleFiles.folder.appendingPathComponent(name)).imageProperties
            #expect(properties["ColorModel"] == .string("RGB"), "\(name)")
            #expect(properties["Depth"] == .number(8), "\(name)")
        }
    }

    @Test func aMovieHasNoColorModel() throws {
        let properties = try MetadataReader.read(fileAt: SampleFiles.library("clip.mp4")).imageProperties
        #expect(properties["ColorModel"] == nil)
        #expect(properties["Depth"] == nil)
    }
}

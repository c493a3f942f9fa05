import Foundation
import LightboxProtocol
import Media
import Testing

/// `imageProperties` is shaped like ImageIO's CGImageSourceCopyPropertiesAtIndex.
@Suite struct ImagePropertiesTests {
    @Test func aPhotoHasTIFFExifAndGPSDictionaries() throws {
        let properties = try MetadataReader.read(fileAt: SampleFiles.library("harbour.jpg")).imageProperties
        #expect(properties["PixelWidth"] == .number(640))
        #expect(properties["PixelHeight"] == .number(480))
        #expect(properties["Orientation"] == .number(1))
        #expect(properties["HasAlpha"] == .bool(false))
        #expect(properties["{TIFF}"] == .object(["Make": .string("Lightbox"), "Model": .string("Sample Camera 1"), "Orientation": .number(1)]))
        #expect(properties["{Exif}"] == .object([
            "DateTimeOriginal": .string("2024:06:01 12:30:45"), "DateTimeDigitized": .string("2024:06:01 12:30:45"),
            "ExposureTime": .number(0.004), "FNumber": .number(2.8), "ISOSpeedRatings": .array([.number(100)]),
        ]))
        let gps = try #require(properties["{GPS}"])
        #expect(gps["LatitudeRef"] == .string("N"))
        #expect(gps["LongitudeRef"] == .string("E"))
        #expect(gps["Altitude"] == .number(12))
        #expect(gps["AltitudeRef"] == .number(0))
        #expect(abs((number(gps["Latitude"]) ?? 0) - 59.9139) < 1e-4)
        #expect(abs((number(gps["Longitude"]) ?? 0) - 10.7522) < 1e-4)
        #expect(properties["{Video}"] == nil)
    }

    @Test func anAnimationHasItsFormatDictionary() throws {
        let webP = try MetadataReader.read(fileAt: SampleFiles.library("spinner.webp")).imageProperties
        #expect(webP["{WebP}"] == .object([
            "FrameCount": .number(8), "LoopCount": .number(0), "DelayTime": .number(0.1),
            "Duration": .number(0.8), "Lossless": .bool(false),
        ]))
        let gif = try MetadataReader.read(fileAt: SampleFiles.library("bounce.gif")).imageProperties
        #expect(gif["{GIF}"]?["FrameCount"] == .number(10))
        #expect(gif["{GIF}"]?["LoopCount"] == .number(0))
        #expect(gif["{Exif}"] == nil)
    }

    @Test func aStillPNGHasNoPNGAnimationDictionary() throws {
        let properties = try MetadataReader.read(fileAt: SampleFiles.library("sunset.png")).imageProperties
        #expect(properties["HasAlpha"] == .bool(true))
        #expect(properties["{PNG}"] == nil)
        #expect(properties["Orientation"] == nil)
    }

    @Test func aMovieHasAVideoDictionary() throws {
        let properties = try MetadataReader.read(fileAt: SampleFiles.extra("located.mov")).imageProperties
        #expect(properties["PixelWidth"] == .number(160))
        #expect(properties["HasAlpha"] == nil)
        #expect(properties["{Video}"] == .object([
            "Duration": .number(2), "Codec": .string("h264"), "Rotation": .number(90), "FrameCount": .number(20),
            "CreationDate": .string("2024-05-02T08:15:00Z"),
        ]))
        #expect(properties["{TIFF}"]?["Model"] == .string("Sample Camera 3"))
        #expect(properties["{GPS}"]?["LatitudeRef"] == .string("N"))
    }

    @Test func theDictionaryEncodesAsJSON() throws {
        let properties = try MetadataReader.read(fileAt: SampleFiles.library("harbour.jpg")).imageProperties
        let data = try JSONEncoder().encode(properties)
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: data)
        #expect(decoded["{Exif}"]?["DateTimeOriginal"] == .string("2024:06:01 12:30:45"))
    }
}

private func number(_ value: JSONValue?) -> Double? {
    if case .number(let number) = value { return number }
    return nil
}

import Foundation
import LightboxProtocol
import Testing
@testable import Media

/// An approximate location (docs/PROTOCOL.md, *Location by consent*): latitude and longitude on the
/// 0.1° grid, nothing else of GPS, the rest of the file as it was.
@Suite struct LocationApproximationTests {
    func approximate(_ bytes: Data, named name: String) throws -> (Data, MediaMetadata) {
        try SampleFiles.withTemporaryFile(bytes, named: name) { url in
            let destination = url.deletingLastPathComponent().appendingPathComponent("approximate-\(name)")
            try MetadataStripper.strip(removing: .approximateLocation, from: url, to: destination)
            return (try Data(contentsOf: destination), try MetadataReader.read(fileAt: destination))
        }
    }

    @Test func theGridIsATenthOfADegreeHalvesAwayFromZero() {
        #expect(LocationAccess.approximate(59.9139) == 59.9)
        #expect(LocationAccess.approximate(10.7522) == 10.8)
        #expect(LocationAccess.approximate(-33.8568) == -33.9)
        #expect(LocationAccess.approximate(2.35) == 2.4)
        #expect(LocationAccess.approximate(-0.04) == 0)
        #expect(LocationAccess.approximate(179.99) == 180)
    }

    @Test func harbourKeepsItsCameraAndGetsTheSnappedPointWithoutAltitude() throws {
        let original = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let (bytes, metadata) = try approximate(original, named: "harbour.jpg")
        let location = try #require(metadata.location)
        #expect(location.latitude == 59.9 && location.longitude == 10.8 && location.altitude == nil)
        #expect(metadata.cameraMake == "Lightbox" && metadata.dateTimeOriginal == "2024:06:01 12:30:45")
        #expect(JPEGFixtures.scanData(bytes) == JPEGFixtures.scanData(original))
        #expect(!MetadataStripperTests.contains(bytes, "WGS-84"), "the old GPS IFD is gone")
        #expect(JPEGFixtures.gpsPointers(in: bytes) == 1)
    }

    @Test func xmpKeepsOnlyTheSnappedPosition() throws {
        let (bytes, metadata) = try approximate(try JPEGFixtures.harbourWithEverything(), named: "everything.jpg")
        #expect(metadata.hasXMP)
        #expect(MetadataStripperTests.contains(bytes, "exif:GPSLatitude=\"59,54.0000N\""))
        #expect(!MetadataStripperTests.contains(bytes, "59,54.834N") && !MetadataStripperTests.contains(bytes, "10,45.132E"))
        #expect(metadata.location?.latitude == 59.9)
    }

    @Test func pngKeepsItsPixelsAndGetsTheSnappedPoint() throws {
        let url = SampleFiles.folder.appendingPathComponent("properties/profiled.png")
        let original = try MetadataReader.read(fileAt: url)
        let (_, metadata) = try approximate(try SampleFiles.bytes(url), named: "profiled.png")
        let before = try #require(original.location), after = try #require(metadata.location)
        #expect(after.latitude == LocationAccess.approximate(before.latitude) && after.longitude == LocationAccess.approximate(before.longitude))
        #expect(after.altitude == nil && metadata.profileName == original.profileName)
    }

    @Test func propertiesShowOnlyTheSnappedPoint() {
        let properties: [String: JSONValue] = ["PixelWidth": .number(640), "{GPS}": .object([
            "Latitude": .number(59.9139), "LatitudeRef": .string("N"), "Longitude": .number(10.7522), "LongitudeRef": .string("E"),
            "Altitude": .number(12), "AltitudeRef": .number(0)])]
        #expect(MetadataRemoval.approximateLocation.applied(to: properties)["{GPS}"] == .object([
            "Latitude": .number(59.9), "LatitudeRef": .string("N"), "Longitude": .number(10.8), "LongitudeRef": .string("E")]))
        #expect(MetadataRemoval.location.applied(to: properties)["{GPS}"] == nil)
        #expect(MetadataRemoval.none.applied(to: properties) == properties)
        #expect(MetadataRemoval(stripping: .none, location: .none) == .location)
        #expect(MetadataRemoval(stripping: .none, location: .approximate) == .approximateLocation)
        #expect(MetadataRemoval(stripping: .location, location: .precise) == .location)
        #expect(MetadataRemoval(stripping: .none, location: .precise) == MetadataRemoval.none)
    }

    @Test func theOwnerGivesNoMoreThanAsked() {
        #expect(LocationAccess.granted(asked: .approximate, chosen: .precise) == .approximate)
        #expect(LocationAccess.granted(asked: .precise, chosen: .approximate) == .approximate)
        #expect(LocationAccess.granted(asked: .precise, chosen: nil) == LocationAccess.none)
    }
}

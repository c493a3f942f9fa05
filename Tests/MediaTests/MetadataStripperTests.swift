import Foundation
import LightboxProtocol
import Testing
@testable import Media

@Suite struct MetadataStripperTests {
    /// Strips `bytes` (written as `name`) and gives the result's bytes and metadata, after checking
    /// that the copy still decodes to the original's size.
    func strip(_ what: MetadataStripping, _ bytes: Data, named name: String) throws -> (Data, MediaMetadata) {
        try SampleFiles.withTemporaryFile(bytes, named: name) { url in
            let destination = url.deletingLastPathComponent().appendingPathComponent("stripped-\(name)")
            try MetadataStripper.strip(what, from: url, to: destination)
            let original = try ImageRenderer.thumbnail(of: url, targetWidth: 10_000, targetHeight: 10_000, contentMode: .fit)
            let decoded = try ImageRenderer.thumbnail(of: destination, targetWidth: 10_000, targetHeight: 10_000, contentMode: .fit)
            #expect((decoded.pixelWidth, decoded.pixelHeight) == (original.pixelWidth, original.pixelHeight), "\(name)")
            return (try Data(contentsOf: destination), try MetadataReader.read(fileAt: destination))
        }
    }

    static func contains(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

    // MARK: JPEG

    @Test func locationLeavesHarbourWithoutGPSButWithItsCameraAndDate() throws {
        let original = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let (bytes, metadata) = try strip(.location, original, named: "harbour.jpg")
        #expect(metadata.location == nil)
        #expect(metadata.cameraMake == "Lightbox")
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(metadata.dateTimeOriginal == "2024:06:01 12:30:45")
        #expect(metadata.exposureTime == 1.0 / 250)
        #expect((metadata.pixelWidth, metadata.pixelHeight) == (640, 480))
        #expect(!Self.contains(bytes, "WGS-84"))  // the GPS IFD's map datum
        #expect(JPEGFixtures.gpsPointers(in: bytes) == 0)
        #expect(JPEGFixtures.gpsPointers(in: original) == 1)
        // Lossless: the compressed image data is the same bytes.
        #expect(JPEGFixtures.scanData(bytes) == JPEGFixtures.scanData(original))
    }

    @Test func locationDropsXMPAndPlaceNamesButKeepsCommentsAndCaptions() throws {
        let (bytes, metadata) = try strip(.location, try JPEGFixtures.harbourWithEverything(), named: "everything.jpg")
        #expect(metadata.location == nil)
        #expect(!metadata.hasXMP)
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(!Self.contains(bytes, "exif:GPS"))
        #expect(!Self.contains(bytes, "Oslo"))  // IPTC city
        #expect(Self.contains(bytes, "Boats at dawn"))  // IPTC caption
        #expect(Self.contains(bytes, "a comment"))  // COM
        #expect(!Self.contains(bytes, "TRAILER"))  // after EOI
        #expect(JPEGFixtures.gpsPointers(in: bytes) == 0)
    }

    @Test func allLeavesNothing() throws {
        let (bytes, metadata) = try strip(.all, try JPEGFixtures.harbourWithEverything(), named: "everything.jpg")
        #expect(!metadata.hasEXIF)
        #expect(!metadata.hasXMP)
        #expect(metadata.location == nil)
        #expect(metadata.cameraMake == nil)
        #expect(metadata.dateTimeOriginal == nil)
        #expect((metadata.pixelWidth, metadata.pixelHeight) == (640, 480))
        for text in ["Exif", "exif:GPS", "Oslo", "Boats at dawn", "a comment", "Photoshop", "TRAILER", "Lightbox"] {
            #expect(!Self.contains(bytes, text), "\(text) remains")
        }
        #expect(Self.contains(bytes, "JFIF"))
    }

    /// portrait.jpg is stored sideways (orientation 6): `.all` keeps that one fact, so it still
    /// shows as a landscape, and nothing else.
    @Test func allKeepsTheOrientationOfASidewaysPhoto() throws {
        let (_, metadata) = try strip(.all, try SampleFiles.bytes(SampleFiles.library("portrait.jpg")), named: "portrait.jpg")
        #expect(metadata.orientation == 6)
        #expect(metadata.cameraModel == nil)
        #expect(metadata.dateTimeOriginal == nil)
        #expect((metadata.pixelWidth, metadata.pixelHeight) == (300, 400))
    }

    /// EXIF whose GPS IFD cannot be found cannot be edited safely: it goes, but for the orientation.
    @Test func locationReplacesEXIFItCannotFollowByTheOrientationAlone() throws {
        let broken = try JPEGFixtures.harbourWithBrokenGPSPointer()
        #expect(try SampleFiles.withTemporaryFile(broken, named: "broken.jpg") { try MetadataReader.read(fileAt: $0) }.orientation == 6)
        let (bytes, metadata) = try strip(.location, broken, named: "broken.jpg")
        #expect(metadata.orientation == 6)
        #expect(metadata.location == nil)
        #expect(metadata.cameraMake == nil)
        #expect(!Self.contains(bytes, "WGS-84"))
    }

    // MARK: PNG

    @Test func pngLocationRewritesEXIfAndDropsXMP() throws {
        let (bytes, metadata) = try strip(.location, try PNGFixtures.sunsetWithEverything(), named: "everything.png")
        #expect(metadata.location == nil)
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(!metadata.hasXMP)
        #expect(!Self.contains(bytes, "exif:GPS"))
        #expect(!Self.contains(bytes, "WGS-84"))
        #expect(Self.contains(bytes, "a comment"))
        #expect(PNGFixtures.chunksHaveValidCRCs(bytes))
    }

    @Test func pngAllDropsEXIfAndText() throws {
        let (bytes, metadata) = try strip(.all, try PNGFixtures.sunsetWithEverything(), named: "everything.png")
        #expect(!metadata.hasEXIF)
        #expect(!metadata.hasXMP)
        #expect(metadata.hasAlpha == true)
        for text in ["eXIf", "iTXt", "tEXt", "a comment", "Lightbox"] {
            #expect(!Self.contains(bytes, text), "\(text) remains")
        }
        #expect(PNGFixtures.chunksHaveValidCRCs(bytes))
    }

    // MARK: WebP

    @Test func webPLocationRewritesEXIFAndDropsXMP() throws {
        let (bytes, metadata) = try strip(.location, try WebPFixtures.meadowWithEverything(), named: "everything.webp")
        #expect(metadata.location == nil)
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(!metadata.hasXMP)
        #expect(!Self.contains(bytes, "exif:GPS"))
        #expect(!Self.contains(bytes, "WGS-84"))
        #expect(WebPFixtures.flags(bytes) == 0x08)  // EXIF only
        #expect(WebPFixtures.riffSizeMatches(bytes))
    }

    @Test func webPAllDropsEXIFAndXMP() throws {
        let (bytes, metadata) = try strip(.all, try WebPFixtures.meadowWithEverything(), named: "everything.webp")
        #expect(!metadata.hasEXIF)
        #expect(!metadata.hasXMP)
        #expect(!Self.contains(bytes, "EXIF"))
        #expect(!Self.contains(bytes, "XMP "))
        #expect(WebPFixtures.flags(bytes) == 0)
        #expect(WebPFixtures.riffSizeMatches(bytes))
    }

    @Test func animatedWebPKeepsItsFrames() throws {
        let (_, metadata) = try strip(.all, try SampleFiles.bytes(SampleFiles.library("spinner.webp")), named: "spinner.webp")
        #expect(metadata.frameCount == 8)
        #expect(metadata.loopCount == 0)
    }

    // MARK: GIF

    @Test func gifLocationDropsXMPAndAllDropsComments() throws {
        let gif = try GIFFixtures.bounceWithEverything()
        let (located, locationMetadata) = try strip(.location, gif, named: "everything.gif")
        #expect(!locationMetadata.hasXMP)
        #expect(!Self.contains(located, "exif:GPS"))
        #expect(Self.contains(located, "a comment"))
        #expect(locationMetadata.frameCount == 10)
        #expect(locationMetadata.loopCount == 0)
        let (bare, bareMetadata) = try strip(.all, gif, named: "everything.gif")
        #expect(!bareMetadata.hasXMP)
        #expect(!Self.contains(bare, "a comment"))
        #expect(bareMetadata.frameCount == 10)
        #expect(bareMetadata.loopCount == 0)
        #expect(bareMetadata.duration == 0.8)
    }

    // MARK: Refusals

    @Test func moviesAreRefusedHereRatherThanLeaked() throws {
        for url in [SampleFiles.library("clip.mp4"), SampleFiles.extra("located.mov")] {
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("never-\(UUID().uuidString)")
            #expect(throws: MediaError.self) {
                do {
                    try MetadataStripper.strip(.location, from: url, to: destination)
                } catch let error as MediaError {
                    #expect(error.code == .unsupportedFormat)
                    #expect(error.message.contains(url.lastPathComponent))
                    throw error
                }
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    // MARK: HEIC

    /// Strips harbour.heic with `removal`: the copy is a HEIC of the same length whose bytes differ
    /// only inside its Exif item, and whose decoded pixels are the original's.
    func stripHEIC(_ removal: MetadataRemoval) throws -> (Data, MediaMetadata) {
        let url = SampleFiles.extra("harbour.heic")
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("stripped-\(UUID().uuidString).heic")
        defer { try? FileManager.default.removeItem(at: destination) }
        try MetadataStripper.strip(removing: removal, from: url, to: destination)
        let (original, stripped) = (try Data(contentsOf: url), try Data(contentsOf: destination))
        #expect(stripped.count == original.count)
        let exif = try #require(try HEIFReader.metadataItems(fileAt: url).exif.first)
        let item = try #require(original.range(of: exif))
        let changed = zip(original.indices, zip(original, stripped)).filter { $0.1.0 != $0.1.1 }.map(\.0)
        #expect(!changed.isEmpty && changed.allSatisfy { item.contains($0) }, "only the Exif item changes")
        let decoded = try ImageRenderer.thumbnail(of: destination, targetWidth: 10_000, targetHeight: 10_000, contentMode: .fit)
        let decodedOriginal = try ImageRenderer.thumbnail(of: url, targetWidth: 10_000, targetHeight: 10_000, contentMode: .fit)
        #expect(decoded.data == decodedOriginal.data, "the same pixels")
        return (stripped, try MetadataReader.read(fileAt: destination))
    }

    @Test func heicKeepsItsFormatAndPixelsWithoutItsLocation() throws {
        let (bytes, metadata) = try stripHEIC(.location)
        #expect(metadata.type == .heic)
        #expect(metadata.location == nil)
        #expect(metadata.cameraModel == "Sample Camera 1")
        #expect(!Self.contains(bytes, "WGS-84"))
    }

    @Test func heicWithAnApproximateLocationIsSnappedInPlace() throws {
        let (_, metadata) = try stripHEIC(.approximateLocation)
        let location = try #require(metadata.location)
        #expect((location.latitude, location.longitude) == (59.9, 10.8))
        #expect(location.altitude == nil)
    }

    @Test func heicWithoutAnyMetadataKeepsItsPixels() throws {
        let (_, metadata) = try stripHEIC(.all)
        #expect(metadata.type == .heic && metadata.location == nil && metadata.cameraMake == nil && metadata.dateTimeOriginal == nil)
    }

    // MARK: Positions only in XMP

    /// harbour.jpg, sunset.png and meadow.webp with their position only in XMP.
    static func xmpOnlyStills() throws -> [(String, Data)] {
        let harbour = try SampleFiles.withTemporaryFile(try SampleFiles.bytes(SampleFiles.library("harbour.jpg")), named: "harbour.jpg") { url in
            let destination = url.deletingLastPathComponent().appendingPathComponent("no-gps-harbour.jpg")
            try MetadataStripper.strip(.location, from: url, to: destination)
            return try Data(contentsOf: destination)
        }
        let exif = try #require(JPEGSegments(harbour).segments.first { $0.marker == 0xE1 })
        var jpeg = harbour
        jpeg.insert(contentsOf: JPEGFixtures.segment(0xE1, Data("http://ns.adobe.com/xap/1.0/\0".utf8) + Data(xmpWithGPS.utf8)),
                    at: exif.offset + exif.length)
        var png = try SampleFiles.bytes(SampleFiles.library("sunset.png"))
        png.insert(contentsOf: PNGFixtures.chunk("iTXt", Data("XML:com.adobe.xmp\0\0\0\0\0".utf8) + Data(xmpWithGPS.utf8)), at: 8 + 25)
        let meadow = try SampleFiles.bytes(SampleFiles.library("meadow.webp"))
        let vp8x = Data([0x04, 0, 0, 0, 0x8F, 0x01, 0, 0x2B, 0x01, 0])  // XMP flag; 400 × 300 (stored minus one)
        let body = Data("WEBP".utf8) + WebPFixtures.chunk("VP8X", vp8x) + meadow.subdata(in: 12..<meadow.count)
            + WebPFixtures.chunk("XMP ", Data(xmpWithGPS.utf8))
        let webP = Data("RIFF".utf8) + WebPFixtures.littleEndian(UInt32(body.count)) + body
        return [("xmp.jpg", jpeg), ("xmp.png", png), ("xmp.webp", webP)]
    }

    @Test func anXMPOnlyPositionIsReadAndSnappedOrRemoved() throws {
        for (name, bytes) in try Self.xmpOnlyStills() {
            let read = try SampleFiles.withTemporaryFile(bytes, named: name) { try MetadataReader.read(fileAt: $0) }
            let position = try #require(read.location, "\(name): the XMP's position is the photo's")
            #expect(abs(position.latitude - 59.9139) < 1e-4 && abs(position.longitude - 10.7522) < 1e-4)

            let (approximated, approximatedMetadata) = try SampleFiles.withTemporaryFile(bytes, named: name) { url in
                let destination = url.deletingLastPathComponent().appendingPathComponent("approximate-\(name)")
                try MetadataStripper.strip(removing: .approximateLocation, from: url, to: destination)
                return (try Data(contentsOf: destination), try MetadataReader.read(fileAt: destination))
            }
            let snapped = try #require(approximatedMetadata.location, "\(name) keeps the approximate position")
            #expect((snapped.latitude, snapped.longitude) == (59.9, 10.8), "\(name)")
            #expect(Self.contains(approximated, "exif:GPSLatitude=\"59,54.0000N\""), "\(name)")
            #expect(!Self.contains(approximated, "59,54.834N") && !Self.contains(approximated, "10,45.132E"), "\(name)")

            let (_, removed) = try strip(.location, bytes, named: name)
            #expect(removed.location == nil && !removed.hasXMP, "\(name)")
        }
    }

    @Test(arguments: ["empty.gif", "garbage.webp", "truncated.jpg"])
    func malformedFilesGiveAMediaError(_ name: String) {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("never-\(UUID().uuidString)")
        #expect(throws: MediaError.self) {
            try MetadataStripper.strip(.all, from: SampleFiles.malformed(name), to: destination)
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func noneCopiesTheFile() throws {
        let original = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        let (bytes, _) = try strip(.none, original, named: "harbour.jpg")
        #expect(bytes == original)
    }

    // MARK: Parts

    @Test func photoshopResourcesLoseCopiesOfEXIFAndXMPAndPlaceNames() throws {
        let payload = JPEGFixtures.photoshopPayload()
        let cleaned = try #require(PhotoshopResources.removingLocation(fromPayload: payload))
        #expect(Self.contains(cleaned, "Boats at dawn"))
        #expect(!Self.contains(cleaned, "Oslo"))
        #expect(!Self.contains(cleaned, "exif:GPS"))
        #expect(PhotoshopResources.removingLocation(fromPayload: Data("Photoshop 3.0\0".utf8) + Data([1, 2, 3])) == nil)
    }

    @Test func aGPSIFDThatPointsPastTheEndMakesTheWholeBlockGo() throws {
        var tiff = try EXIFBlock.tiff(fromJPEG: SampleFiles.library("harbour.jpg"))
        #expect(EXIFLocationRemover.removingLocation(from: tiff) != nil)
        // Point the GPS IFD pointer past the end.
        let pointer = try #require(JPEGFixtures.gpsPointerEntry(in: tiff))
        tiff.replaceSubrange((pointer + 8)..<(pointer + 12), with: tiff[tiff.startIndex] == 0x4D ? [0x7F, 0, 0, 0] : [0, 0, 0, 0x7F])
        #expect(EXIFLocationRemover.removingLocation(from: tiff) == nil)
    }

    // MARK: The shared corpus

    /// Every JPEG, PNG, WebP and GIF in ../shared/media that the importer accepts: both kinds of
    /// stripping give a file that reads back with the same size and no location.
    @Test func everyCorpusImageStripsCleanly() throws {
        guard MediaCorpus.isPresent else {
            print("MetadataStripperTests: ../shared/media is absent; the corpus check is skipped")
            return
        }
        var stripped = 0
        for row in try MediaCorpus.rows() where !row.mustFail {
            let url = MediaCorpus.folder.appendingPathComponent(row.path)
            guard let original = try? MetadataReader.read(fileAt: url), [.jpeg, .png, .webP, .gif].contains(original.type) else { continue }
            for what in [MetadataStripping.location, .all] {
                let destination = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString).\(url.pathExtension)")
                defer { try? FileManager.default.removeItem(at: destination) }
                do {
                    try MetadataStripper.strip(what, from: url, to: destination)
                } catch {
                    Issue.record("\(row.path) \(what): \(error)")
                    continue
                }
                let result = try MetadataReader.read(fileAt: destination)
                #expect(result.location == nil, "\(row.path) \(what)")
                #expect(!result.hasXMP, "\(row.path) \(what)")
                #expect((result.pixelWidth, result.pixelHeight) == (original.pixelWidth, original.pixelHeight), "\(row.path) \(what)")
                if what == .all { #expect(result.cameraMake == nil && result.dateTimeOriginal == nil, "\(row.path)") }
                stripped += 1
            }
        }
        #expect(stripped > 20)
    }
}

import Foundation
import Media
import Testing

/// Samples/motion (made by its make_motion.py from portrait.jpg and clip.mp4) holds one Motion Photo
/// per layout; the hostile variants are made here from them.
@Suite struct MotionPhotoReaderTests {
    static let motion = SampleFiles.folder.appendingPathComponent("motion")
    static let movie = (try? SampleFiles.bytes(SampleFiles.library("clip.mp4"))) ?? Data()

    /// The movie the reader found in `url`, copied out as an app would receive it.
    func movie(of photo: MotionPhoto, in url: URL) throws -> Data {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("motion-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: copy) }
        try MotionPhotoReader.copyMovie(photo, from: url, to: copy)
        #expect(try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? Int == 0o600)
        return try Data(contentsOf: copy)
    }

    @Test(arguments: [("google-container.MP.jpg", MotionPhoto.Layout.googleContainer, Int64?.some(500_000)),
                      ("google-container.MP.heic", .googleContainer, 500_000), ("microvideo.jpg", .microVideo, 500_000),
                      ("samsung.jpg", .samsungTrailer, nil)])
    func eachLayoutGivesTheEmbeddedMP4(_ name: String, _ layout: MotionPhoto.Layout, _ timestamp: Int64?) throws {
        let url = Self.motion.appendingPathComponent(name)
        guard case .motionPhoto(let photo) = try MotionPhotoReader.find(inFileAt: url) else {
            Issue.record("\(name) is not read as a Motion Photo")
            return
        }
        #expect(photo.layout == layout)
        #expect(photo.presentationTimestampMicroseconds == timestamp)
        #expect(photo.movieRange.count == Self.movie.count)
        #expect(try movie(of: photo, in: url) == Self.movie, "the movie's bytes, exactly")
        // The still is still a JPEG the metadata reader reads.
        #expect(try MetadataReader.read(fileAt: url).pixelWidth != nil)
    }

    @Test func plainStillsAndMoviesAreNoMotionPhotos() throws {
        #expect(try MotionPhotoReader.find(inFileAt: SampleFiles.library("portrait.jpg")) == .none)
        #expect(try MotionPhotoReader.find(inFileAt: SampleFiles.library("clip.mp4")) == .none)
        #expect(try MotionPhotoReader.find(inFileAt: SampleFiles.folder.appendingPathComponent("live/identified.jpg")) == .none)
    }

    /// `google` with its XMP's Length replaced by `length` (same digit count keeps the segment's size).
    func googleFile(length: String) throws -> Data {
        let good = try SampleFiles.bytes(Self.motion.appendingPathComponent("google-container.MP.jpg"))
        let text = "Item:Length=\"\(Self.movie.count)\""
        let range = try #require(good.firstRange(of: Data(text.utf8)))
        return good.replacingSubrange(range, with: Data("Item:Length=\"\(length)\"".utf8), in: good)
    }

    @Test(arguments: [("99999", "outside the file"), ("00000", "outside the file"), ("-1234", "outside the file"),
                      ("17897", "does not start with an MP4 ftyp box"), ("17937", "does not fit")])
    func lyingLengthsAreIgnoredWithAReason(_ length: String, _ reason: String) throws {
        let bytes = try googleFile(length: length)
        let finding = try SampleFiles.withTemporaryFile(bytes, named: "lying.jpg") { try MotionPhotoReader.find(inFileAt: $0) }
        guard case .ignored(let said) = finding else {
            Issue.record("Length \(length) gave \(finding)")
            return
        }
        #expect(said.contains(reason), "\(said)")
    }

    @Test func theLyingSampleIsIgnored() throws {
        let finding = try MotionPhotoReader.find(inFileAt: Self.motion.appendingPathComponent("lying-length.jpg"))
        guard case .ignored(let reason) = finding else {
            Issue.record("lying-length.jpg gave \(finding)")
            return
        }
        #expect(reason.contains("outside the file"))
    }

    @Test func aMicroVideoOffsetPastTheFileIsIgnored() throws {
        let good = try SampleFiles.bytes(Self.motion.appendingPathComponent("microvideo.jpg"))
        let text = Data("MicroVideoOffset=\"\(Self.movie.count)\"".utf8)
        let range = try #require(good.firstRange(of: text))
        let lying = good.replacingSubrange(range, with: Data("MicroVideoOffset=\"99999\"".utf8), in: good)
        let finding = try SampleFiles.withTemporaryFile(lying, named: "lying.jpg") { try MotionPhotoReader.find(inFileAt: $0) }
        #expect(finding != .none)
        if case .motionPhoto = finding { Issue.record("an offset past the file was believed") }
    }

    @Test func aSamsungMarkerWithoutAnMP4IsIgnored() throws {
        let still = try SampleFiles.bytes(SampleFiles.library("portrait.jpg"))
        let noFtyp = still + Data("MotionPhoto_Data".utf8) + Data(repeating: 0x41, count: 64)
        var finding = try SampleFiles.withTemporaryFile(noFtyp, named: "s.jpg") { try MotionPhotoReader.find(inFileAt: $0) }
        guard case .ignored = finding else {
            Issue.record("no MP4 after the marker gave \(finding)")
            return
        }
        // A movie cut short: its boxes stop inside the file, so the moov box is missing.
        let truncated = still + Data("MotionPhoto_Data".utf8) + Self.movie.prefix(Self.movie.count - 100)
        finding = try SampleFiles.withTemporaryFile(truncated, named: "s.jpg") { try MotionPhotoReader.find(inFileAt: $0) }
        if case .motionPhoto = finding { Issue.record("a truncated movie was believed") }
        // Nothing after the marker at all.
        let bare = still + Data("MotionPhoto_Data".utf8)
        finding = try SampleFiles.withTemporaryFile(bare, named: "s.jpg") { try MotionPhotoReader.find(inFileAt: $0) }
        if case .motionPhoto = finding { Issue.record("a bare marker was believed") }
    }
}

private extension Data {
    func replacingSubrange(_ range: Range<Int>, with replacement: Data, in data: Data) -> Data {
        var copy = data
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}

import Foundation
import LightboxProtocol
import Testing
@testable import Media

@Suite struct ImageRendererTests {
    /// Renders a thumbnail and reads its bytes back with MetadataReader.
    func thumbnail(_ url: URL, _ width: Int, _ height: Int, _ mode: ThumbnailContentMode) throws -> (RenderedThumbnail, MediaMetadata) {
        let image = try ImageRenderer.thumbnail(of: url, targetWidth: width, targetHeight: height, contentMode: mode)
        let name = image.type == .png ? "thumbnail.png" : "thumbnail.jpg"
        let metadata = try SampleFiles.withTemporaryFile(image.data, named: name) { try MetadataReader.read(fileAt: $0) }
        #expect(metadata.type == image.type)
        #expect(metadata.pixelWidth == image.pixelWidth)
        #expect(metadata.pixelHeight == image.pixelHeight)
        return (image, metadata)
    }

    @Test func fitStaysInsideTheBoxKeepingTheAspectRatioAndDropsMetadata() throws {
        let (image, metadata) = try thumbnail(SampleFiles.library("harbour.jpg"), 200, 200, .fit)  // 640 × 480
        #expect(image.type == .jpeg)
        #expect((image.pixelWidth, image.pixelHeight) == (200, 150))
        #expect(!metadata.hasEXIF)
        #expect(metadata.location == nil)
    }

    @Test func fillIsExactlyTheBox() throws {
        let (harbour, _) = try thumbnail(SampleFiles.library("harbour.jpg"), 100, 100, .fill)
        #expect((harbour.pixelWidth, harbour.pixelHeight) == (100, 100))
        let (meadow, _) = try thumbnail(SampleFiles.library("meadow.webp"), 64, 128, .fill)  // 400 × 300
        #expect((meadow.pixelWidth, meadow.pixelHeight) == (64, 128))
    }

    @Test func neitherModeEnlarges() throws {
        let (fit, _) = try thumbnail(SampleFiles.library("bounce.gif"), 256, 256, .fit)  // 80 × 60
        #expect((fit.pixelWidth, fit.pixelHeight) == (80, 60))
        // Fill keeps the box's shape at the image's own scale, as PhotoKit does.
        let (fill, _) = try thumbnail(SampleFiles.library("bounce.gif"), 160, 160, .fill)
        #expect((fill.pixelWidth, fill.pixelHeight) == (60, 60))
    }

    /// portrait.jpg stores 300 × 400 pixels with orientation 6 (turn 90° clockwise to show), so it
    /// shows as a 400 × 300 landscape: its thumbnail is landscape too.
    @Test func orientationIsAppliedBeforeSizing() throws {
        let (fit, metadata) = try thumbnail(SampleFiles.library("portrait.jpg"), 200, 200, .fit)
        #expect((fit.pixelWidth, fit.pixelHeight) == (200, 150))
        #expect(metadata.orientation == nil)
        let (fill, _) = try thumbnail(SampleFiles.library("portrait.jpg"), 120, 40, .fill)
        #expect((fill.pixelWidth, fill.pixelHeight) == (120, 40))
    }

    @Test func everyImageFormatGivesAThumbnail() throws {
        let expected: [(URL, UTType, Int, Int)] = [
            (SampleFiles.extra("harbour.heic"), .jpeg, 128, 96),
            (SampleFiles.library("meadow.webp"), .jpeg, 128, 96),
            (SampleFiles.library("spinner.webp"), .png, 64, 64),  // animated, with alpha: its first frame
            (SampleFiles.library("bounce.gif"), .jpeg, 80, 60),  // animated: its first frame
            (SampleFiles.library("sunset.png"), .png, 128, 80),  // alpha
        ]
        for (url, type, width, height) in expected {
            let (image, _) = try thumbnail(url, 128, 128, .fit)
            #expect(image.type == type, "\(url.lastPathComponent)")
            #expect((image.pixelWidth, image.pixelHeight) == (width, height), "\(url.lastPathComponent)")
        }
    }

    @Test func moviesAreRefusedAsUnsupported() {
        for movie in [SampleFiles.library("clip.mp4"), SampleFiles.extra("located.mov")] {
            #expect(throws: MediaError.self) {
                do {
                    _ = try ImageRenderer.thumbnail(of: movie, targetWidth: 64, targetHeight: 64, contentMode: .fit)
                } catch let error as MediaError {
                    #expect(error.code == .unsupportedFormat)
                    #expect(error.message.contains("movie"))
                    throw error
                }
            }
        }
    }

    /// An import renders from the bytes it has just read: the same thumbnail as from the file, and
    /// the file itself is not opened (here it does not exist). The sample's EXIF orientation
    /// (portrait.jpg) is applied either way.
    @Test(arguments: ["harbour.jpg", "portrait.jpg", "sunset.png", "meadow.webp", "bounce.gif"])
    func bytesInMemoryGiveTheFilesThumbnail(_ name: String) throws {
        let url = SampleFiles.library(name)
        let bytes = try SampleFiles.bytes(url)
        let fromFile = try ImageRenderer.thumbnail(of: url, targetWidth: 96, targetHeight: 96, contentMode: .fit)
        let absent = FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID())-\(name)")
        let fromBytes = try ImageRenderer.thumbnail(of: absent, contents: bytes, targetWidth: 96, targetHeight: 96, contentMode: .fit)
        #expect(fromBytes.type == fromFile.type)
        #expect((fromBytes.pixelWidth, fromBytes.pixelHeight) == (fromFile.pixelWidth, fromFile.pixelHeight))
        #expect(fromBytes.data == fromFile.data)
    }

    /// An image that fits the box and needs nothing done (an 8-bit sRGB or grey JPEG or PNG without
    /// alpha, orientation or embedded profile) is encoded as it is: the same bytes as through
    /// libvips' thumbnail pipeline. Any of those four, or another format, sends it through the pipeline.
    @Test func anImageThatNeedsNoWorkIsEncodedAsItIsToThePipelinesBytes() throws {
        let harbour = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))  // 640 × 480, sRGB, no profile
        let smallJPEG = try ImageRenderer.thumbnail(of: SampleFiles.library("harbour.jpg"), targetWidth: 64, targetHeight: 64,
                                                    contentMode: .fit).data
        let plain: [(String, Data)] = [
            ("harbour.jpg", harbour), ("small.jpg", smallJPEG),
            ("rgb.png", Self.uncompressedPNG(width: 8, height: 6, channels: 3)), ("grey.png", Self.uncompressedPNG(width: 5, height: 7, channels: 1)),
        ]
        for (name, bytes) in plain {
            let asIs = try render(bytes, named: name, side: 1024, asIs: true)
            let piped = try render(bytes, named: name, side: 1024, asIs: false)
            #expect(asIs.data == piped.data, "\(name)")
            #expect((asIs.pixelWidth, asIs.pixelHeight) == (piped.pixelWidth, piped.pixelHeight), "\(name)")
            #expect(try encodedAsIs(bytes, named: name, side: 1024) != nil, "\(name) went through the pipeline")
            // Smaller than the image, the box needs the pipeline's resizing.
            #expect(try encodedAsIs(bytes, named: name, side: 4) == nil, "\(name)")
            // Cut short, both ways decode around the damage alike or fail alike.
            let cut = Data(bytes.prefix(bytes.count * 2 / 3))
            let cutAsIs = Result { try render(cut, named: name, side: 1024, asIs: true) }
            let cutPiped = Result { try render(cut, named: name, side: 1024, asIs: false) }
            switch (cutAsIs, cutPiped) {
            case (.success(let asIs), .success(let piped)): #expect(asIs.data == piped.data, "\(name) cut short")
            case (.failure(let asIs as MediaError), .failure(let piped as MediaError)): #expect(asIs.code == piped.code, "\(name) cut short")
            default: Issue.record("\(name) cut short: \(cutAsIs) as it is, \(cutPiped) through the pipeline")
            }
        }
        let needingWork: [(String, Data)] = [
            ("portrait.jpg", try SampleFiles.bytes(SampleFiles.library("portrait.jpg"))),  // orientation 6
            ("sunset.png", try SampleFiles.bytes(SampleFiles.library("sunset.png"))),  // alpha
            ("meadow.webp", try SampleFiles.bytes(SampleFiles.library("meadow.webp"))),
            ("profiled.jpg", Self.withICCSegment(harbour)),
        ]
        for (name, bytes) in needingWork {
            #expect(try encodedAsIs(bytes, named: name, side: 1024) == nil, "\(name)")
        }
    }

    /// The thumbnail `makeThumbnail` gives, as it is when it can (`asIs`), or always through the pipeline.
    private func render(_ bytes: Data, named name: String, side: Int, asIs: Bool) throws -> RenderedThumbnail {
        let url = URL(fileURLWithPath: "/nowhere/\(name)")
        let request = ImageRenderer.ThumbnailRequest(width: side, height: side, contentMode: .fit, quality: 80,
                                                     timeLimit: ImageRenderer.defaultTimeLimit)
        return try bytes.withUnsafeBytes { buffer in
            if asIs { return try ImageRenderer.makeThumbnail(of: url, contents: (bytes, buffer), request) }
            let metadata = try MetadataReader.read(fileAt: url, contents: bytes)
            return try ImageRenderer.pipelineThumbnail(url, contents: buffer, metadata: metadata, box: box(metadata, side: side), request, start: .now)
        }
    }

    private func encodedAsIs(_ bytes: Data, named name: String, side: Int) throws -> RenderedThumbnail? {
        let url = URL(fileURLWithPath: "/nowhere/\(name)")
        let metadata = try MetadataReader.read(fileAt: url, contents: bytes)
        let request = ImageRenderer.ThumbnailRequest(width: side, height: side, contentMode: .fit, quality: 80,
                                                     timeLimit: ImageRenderer.defaultTimeLimit)
        return try bytes.withUnsafeBytes { buffer in
            try ImageRenderer.encodedAsIs(url, contents: buffer, metadata: metadata, box: box(metadata, side: side), request, start: .now)
        }
    }

    /// The `.fit` box of `side` for an image whose orientation needs no turning (the plain ones here).
    private func box(_ metadata: MediaMetadata, side: Int) -> (width: Int, height: Int) {
        ThumbnailSize.bounded(width: side, height: side, contentMode: .fit,
                              imageWidth: metadata.pixelWidth ?? 0, imageHeight: metadata.pixelHeight ?? 0)
    }

    /// An 8-bit grey (1 channel) or RGB (3) PNG with stored (uncompressed) deflate blocks.
    static func uncompressedPNG(width: Int, height: Int, channels: Int) -> Data {
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(0)
            for column in 0..<(width * channels) { raw.append(UInt8(truncatingIfNeeded: row * 37 + column * 11)) }
        }
        var adler = (a: UInt32(1), b: UInt32(0))
        for byte in raw { adler.a = (adler.a + UInt32(byte)) % 65521; adler.b = (adler.b + adler.a) % 65521 }
        let length = UInt16(raw.count)
        let zlib = [0x78, 0x01, 1, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + raw
            + bigEndian(adler.b << 16 | adler.a)
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(CRC32.checksum(typed))
        }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, channels == 1 ? 0 : 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", []))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// `jpeg` with an APP2 ICC_PROFILE segment after its SOI (libvips attaches it as the image's profile).
    static func withICCSegment(_ jpeg: Data) -> Data {
        var profile = [UInt8](repeating: 0, count: 128)
        profile[36..<40] = [0x61, 0x63, 0x73, 0x70]  // "acsp"
        let body = Array("ICC_PROFILE".utf8) + [0, 1, 1] + bigEndian(UInt32(profile.count)) + profile[4...]
        let length = UInt16(body.count + 2)
        return Data(jpeg.prefix(2) + [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + body + jpeg.dropFirst(2))
    }

    @Test func brokenBytesInMemoryGiveAMediaErrorNamingTheFile() throws {
        let jpeg = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        do {
            _ = try ImageRenderer.thumbnail(of: URL(fileURLWithPath: "/nowhere/harbour-copy.jpg"), contents: Self.invalidPNG(),
                                            targetWidth: 64, targetHeight: 64, contentMode: .fit)
            Issue.record("an invalid PNG rendered")
        } catch let error as MediaError {
            #expect(error.code == .malformed)
            #expect(error.message.contains("harbour-copy.jpg"))
        }
        #expect(throws: MediaError.self) {
            _ = try ImageRenderer.thumbnail(of: URL(fileURLWithPath: "/nowhere/cut.jpg"), contents: Data(jpeg.prefix(40)),
                                            targetWidth: 64, targetHeight: 64, contentMode: .fit)
        }
    }

    @Test(arguments: ["empty.gif", "garbage.webp", "truncated.jpg"])
    func malformedFilesGiveAMediaError(_ name: String) {
        let url = SampleFiles.malformed(name)
        #expect(throws: MediaError.self) {
            _ = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
        }
        #expect(throws: MediaError.self) {
            try ImageRenderer.compatibleJPEG(of: url, to: FileManager.default.temporaryDirectory.appendingPathComponent("never-\(UUID()).jpg"))
        }
    }

    /// Intact headers, damaged image data: libvips decodes around the damage as a browser does (the
    /// importer keeps such photos too), so a JPEG cut short gives the top of the picture. A PNG
    /// whose header libpng rejects is a MediaError.
    @Test func damagedImageDataIsDecodedAroundOrAMediaError() throws {
        let jpeg = try SampleFiles.bytes(SampleFiles.library("harbour.jpg"))
        try SampleFiles.withTemporaryFile(jpeg.prefix(jpeg.count / 2), named: "half.jpg") { url in
            let image = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
            #expect((image.pixelWidth, image.pixelHeight) == (64, 48))
        }
        try SampleFiles.withTemporaryFile(Self.invalidPNG(), named: "bit-depth-3.png") { url in
            #expect(throws: MediaError.self) {
                do {
                    _ = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
                } catch let error as MediaError {
                    #expect(error.code == .malformed)
                    #expect(error.message.contains("bit-depth-3.png"))
                    throw error
                }
            }
        }
    }

    /// sunset.png with an IHDR bit depth PNG does not define (3): MetadataReader reads its size,
    /// libpng refuses to decode it.
    static func invalidPNG() throws -> Data {
        var png = try SampleFiles.bytes(SampleFiles.library("sunset.png"))
        png[24] = 3
        return png
    }

    @Test func badArgumentsAreRefused() {
        let harbour = SampleFiles.library("harbour.jpg")
        for (width, height, quality) in [(0, 10, 85), (10, -1, 85), (10, 100_000, 85), (10, 10, 0), (10, 10, 101)] {
            #expect(throws: MediaError(.invalidArgument, "")) {
                do {
                    _ = try ImageRenderer.thumbnail(of: harbour, targetWidth: width, targetHeight: height, contentMode: .fill, quality: quality)
                } catch let error as MediaError {
                    throw MediaError(error.code, "")
                }
            }
        }
    }

    /// A PNG header claiming 20000 × 20000 pixels (400 megapixels) is refused before decoding.
    @Test func aHugeDeclaredSizeIsRefusedBeforeDecoding() throws {
        var png = try SampleFiles.bytes(SampleFiles.library("sunset.png"))
        png.replaceSubrange(16..<24, with: [0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20])
        try SampleFiles.withTemporaryFile(png, named: "bomb.png") { url in
            #expect(throws: MediaError.self) {
                do {
                    _ = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
                } catch let error as MediaError {
                    #expect(error.code == .tooLarge)
                    #expect(error.message.contains("bomb.png"))
                    throw error
                }
            }
        }
    }

    /// A 2 × 2 GIF whose frame claims 30000 × 30000 pixels: decoders grow the canvas to the frame.
    @Test func aGIFFrameFarLargerThanItsCanvasIsRefused() throws {
        var bytes = TinyGIF.twoFrames
        let descriptor = TinyGIF.firstImageDescriptor
        bytes.replaceSubrange((descriptor + 5)..<(descriptor + 9), with: [0x30, 0x75, 0x30, 0x75])
        try SampleFiles.withTemporaryFile(bytes, named: "frame-bomb.gif") { url in
            #expect(throws: MediaError.self) {
                do {
                    _ = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
                } catch let error as MediaError {
                    #expect(error.code == .tooLarge)
                    throw error
                }
            }
        }
    }

    /// Pillow's test file: a 32 × 32 screen and one frame, cut short in its image data, whose
    /// descriptor puts a 65535 × 1321 frame at row 65280. The declared size is what counts.
    @Test func aFrameCutShortIsMeasuredByItsDescriptor() throws {
        let bytes = Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x20, 0x00, 0x20, 0x00, 0xF1, 0x03, 0x00, 0x00, 0x00, 0x00,
                          0xFF, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0xFF, 0xFF, 0xFF, 0x21, 0xF9, 0x04, 0xC9, 0x00, 0x00, 0x00,
                          0x00, 0x2C, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x29, 0x05, 0x00, 0x8F])
        try SampleFiles.withTemporaryFile(bytes, named: "pillow-bomb.gif") { url in
            #expect(throws: MediaError.self) {
                do {
                    _ = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
                } catch let error as MediaError {
                    #expect(error.code == .tooLarge)
                    #expect(error.message.contains("65535 × 66601"))
                    throw error
                }
            }
        }
    }

    /// libvips' error buffer is per process: a failure's message names only the file at hand, by
    /// name, never an earlier file or a path.
    @Test func errorMessagesNameOnlyTheFileAtHand() throws {
        _ = try ImageRenderer.thumbnail(of: SampleFiles.extra("harbour.heic"), targetWidth: 32, targetHeight: 32, contentMode: .fit)
        try SampleFiles.withTemporaryFile(Self.invalidPNG(), named: "bit-depth-3.png") { url in
            do {
                _ = try ImageRenderer.thumbnail(of: url, targetWidth: 64, targetHeight: 64, contentMode: .fit)
                Issue.record("an invalid PNG gave a thumbnail")
            } catch let error as MediaError {
                #expect(error.message.contains("bit-depth-3.png"))
                #expect(!error.message.contains("/"), "\(error.message)")
                #expect(!error.message.contains("harbour"), "\(error.message)")
            }
        }
    }

    /// The picker renders for many apps at once: libvips is shared, and its start-up runs once.
    @Test func concurrentThumbnailsAllSucceed() async throws {
        let samples = ["harbour.jpg", "meadow.webp", "bounce.gif", "sunset.png", "portrait.jpg", "spinner.webp"].map(SampleFiles.library)
            + [SampleFiles.extra("harbour.heic")]
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for round in 0..<4 {
                for url in samples {
                    group.addTask {
                        let image = try ImageRenderer.thumbnail(of: url, targetWidth: 48 + round, targetHeight: 48, contentMode: .fill)
                        return image.pixelWidth
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sizes.count == 28)
        #expect(Set(sizes) == [48, 49, 50, 51])
    }

    @Test func compatibleJPEGOfAWebPStill() throws {
        let metadata = try compatibleJPEG(SampleFiles.library("meadow.webp"))
        #expect(metadata.type == .jpeg)
        #expect((metadata.pixelWidth, metadata.pixelHeight) == (400, 300))
    }

    @Test func compatibleJPEGOfAHEICKeepsItsEXIFAndLocation() throws {
        let metadata = try compatibleJPEG(SampleFiles.extra("harbour.heic"))
        #expect(metadata.type == .jpeg)
        #expect((metadata.pixelWidth, metadata.pixelHeight) == (640, 480))
        #expect(metadata.cameraMake == "Lightbox")
        #expect(metadata.dateTimeOriginal == "2024:06:01 12:30:45")
        #expect(metadata.location != nil)
    }

    @Test func compatibleJPEGIsUprightWithOrientationReset() throws {
        let metadata = try compatibleJPEG(SampleFiles.library("portrait.jpg"))
        #expect((metadata.pixelWidth, metadata.pixelHeight) == (400, 300))
        #expect((metadata.orientation ?? 1) == 1)
        #expect(metadata.cameraModel == "Sample Camera 2")
    }

    @Test func aFailedCompatibleJPEGLeavesNothingBehind() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compatible-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("bit-depth-3.png")
        try Self.invalidPNG().write(to: source)
        #expect(throws: MediaError.self) {
            try ImageRenderer.compatibleJPEG(of: source, to: folder.appendingPathComponent("out.jpg"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["bit-depth-3.png"])
    }

    func compatibleJPEG(_ url: URL) throws -> MediaMetadata {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compatible-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("compatible.jpg")
        try ImageRenderer.compatibleJPEG(of: url, to: destination)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["compatible.jpg"])
        return try MetadataReader.read(fileAt: destination)
    }
}

import Foundation
import LightboxProtocol
import Media
import Synchronization
import Testing

/// Fast, medium and compatible H.264 derivatives of the sample movies, and movies without their
/// location, read back with Lightbox's own reader (the end-to-end tests also use ffprobe).
@Suite struct VideoTranscoderTests {
    static let movies = [SampleFiles.library("clip.mp4"), SampleFiles.extra("located.mov"), SampleFiles.extra("hevc.mov")]

    func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("video-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Prints the time and size of each derivative of each sample movie (the numbers in the report).
    @Test(arguments: [VideoDerivative.fast, .medium])
    func derivativesAreH264MP4WithinTheirBound(_ derivative: VideoDerivative) async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        for movie in Self.movies {
            let original = try MetadataReader.read(fileAt: movie)
            let output = folder.appendingPathComponent("\(movie.lastPathComponent).\(derivative)")
            let reports = Mutex<[Double]>([])
            let started = ContinuousClock.now
            try await VideoTranscoder.transcode(movie, to: output, as: derivative) { encoded, _ in reports.withLock { $0.append(encoded) } }
            let elapsed = ContinuousClock.now - started
            let made = try MetadataReader.read(fileAt: output)
            #expect(made.type == .mpeg4Movie)
            #expect(made.codec == "h264")
            let bound = try #require(derivative.shortSide)
            let (width, height) = (try #require(made.pixelWidth), try #require(made.pixelHeight))
            #expect(min(width, height) <= bound)
            // Never enlarged; turned upright (the display matrix is applied, not copied).
            let upright = original.rotation == 90 || original.rotation == 270
                ? (original.pixelHeight ?? 0, original.pixelWidth ?? 0) : (original.pixelWidth ?? 0, original.pixelHeight ?? 0)
            #expect(width <= upright.0 && height <= upright.1)
            #expect((made.rotation ?? 0) == 0)
            #expect(abs((made.duration ?? 0) - (original.duration ?? 0)) < 0.2)
            let seen = reports.withLock { $0 }
            #expect(seen.count >= 2 && seen.first == 0 && seen.last == original.duration, "\(seen)")
            let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int ?? 0
            print("transcode \(movie.lastPathComponent) \(derivative): \(width)x\(height), \(size) bytes (original \(try Data(contentsOf: movie).count)), \(elapsed)")
        }
    }

    @Test func hevcBecomesH264AtItsOwnSize() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("compatible.mp4")
        try await VideoTranscoder.transcode(SampleFiles.extra("hevc.mov"), to: output, as: .compatible)
        let made = try MetadataReader.read(fileAt: output)
        #expect(made.codec == "h264" && made.type == .mpeg4Movie)
        #expect(made.pixelWidth == 640 && made.pixelHeight == 480)
    }

    @Test func aStillIsNotTranscoded() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: MediaError.self) {
            try await VideoTranscoder.transcode(SampleFiles.library("sunset.png"), to: folder.appendingPathComponent("x.mp4"), as: .fast)
        }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test func locationGoesAndRotationDateAndCameraStay() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = SampleFiles.extra("located.mov")
        let output = folder.appendingPathComponent("no-location.mov")
        try await MovieMetadataStripper.strip(.location, from: source, to: output)
        let stripped = try MetadataReader.read(fileAt: output)
        #expect(stripped.location == nil)
        #expect(stripped.type == .quickTimeMovie)
        #expect(stripped.rotation == 90)
        #expect(stripped.cameraMake == "Lightbox")
        #expect(stripped.cameraModel == "Sample Camera 3")
        #expect(stripped.creationDate == ISO8601DateFormatter().date(from: "2024-05-02T08:15:00Z"))
        let bytes = try Data(contentsOf: output)
        #expect(bytes.range(of: Data("+59.9139".utf8)) == nil)
        #expect(bytes.range(of: Data([0xA9, 0x78, 0x79, 0x7A])) == nil, "a ©xyz atom is left")
    }

    @Test func allMetadataGoesAndTheMovieStaysTheSame() async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        for source in [SampleFiles.extra("located.mov"), SampleFiles.extra("hevc.mov")] {
            let original = try MetadataReader.read(fileAt: source)
            let output = folder.appendingPathComponent("bare-\(source.lastPathComponent)")
            try await MovieMetadataStripper.strip(.all, from: source, to: output)
            let bare = try MetadataReader.read(fileAt: output)
            #expect(bare.location == nil && bare.cameraMake == nil && bare.cameraModel == nil && bare.creationDate == nil)
            #expect(bare.codec == original.codec && bare.pixelWidth == original.pixelWidth && bare.rotation == original.rotation)
        }
    }
}

import Foundation
import LightboxProtocol
import Media
import Testing

/// The sample library's expected values (Samples/EXPECTED.tsv) were read back with exiftool,
/// ffprobe and webpmux when the samples were made.
struct ExpectedSample: Sendable, CustomTestStringConvertible {
    var file: String
    var type: UTType
    var mediaType: MediaType
    var width: Int
    var height: Int
    var isAnimated: Bool
    var frames: Int
    var duration: Double?
    var dateOriginal: String
    var make: String
    var model: String
    var latitude: Double?
    var longitude: Double?
    var orientation: Int?

    var testDescription: String { file }

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Samples").standardizedFileURL

    static func all() -> [ExpectedSample] {
        let text = (try? String(contentsOf: samples.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().map { line in
            var f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            f += Array(repeating: "", count: max(0, 14 - f.count))
            return ExpectedSample(file: f[0], type: UTType(f[1]), mediaType: MediaType(rawValue: f[2])!, width: Int(f[3])!,
                                  height: Int(f[4])!, isAnimated: f[5] == "1", frames: Int(f[6]) ?? 1, duration: Double(f[7]),
                                  dateOriginal: f[8], make: f[9], model: f[10], latitude: Double(f[11]), longitude: Double(f[12]),
                                  orientation: Int(f[13]))
        }
    }
}

@Suite struct MetadataReaderTests {
    @Test func everySampleIsListed() {
        #expect(ExpectedSample.all().count == 7)
    }

    @Test(arguments: ExpectedSample.all())
    func sampleMetadataMatchesExpectations(_ expected: ExpectedSample) throws {
        let url = ExpectedSample.samples.appendingPathComponent("library/\(expected.file)")
        #expect(try ContentSniffer.sniff(fileAt: url) == expected.type)
        let metadata = try MetadataReader.read(fileAt: url)
        #expect(metadata.type == expected.type)
        #expect(metadata.mediaType == expected.mediaType)
        #expect(metadata.pixelWidth == expected.width)
        #expect(metadata.pixelHeight == expected.height)
        if expected.mediaType == .image {
            #expect(metadata.isAnimated == expected.isAnimated)
            #expect(metadata.subtypes.contains(.animated) == expected.isAnimated)
        }
        #expect(metadata.frameCount == expected.frames)
        if let duration = expected.duration {
            #expect(abs((metadata.duration ?? -1) - duration) < 0.01)
        }
        #expect(metadata.cameraMake == (expected.make.isEmpty ? nil : expected.make))
        #expect(metadata.cameraModel == (expected.model.isEmpty ? nil : expected.model))
        #expect(metadata.orientation == expected.orientation)
        if let latitude = expected.latitude, let longitude = expected.longitude {
            let location = try #require(metadata.location)
            #expect(abs(location.latitude - latitude) < 1e-4 && abs(location.longitude - longitude) < 1e-4)
        } else {
            #expect(metadata.location == nil)
        }
        if !expected.dateOriginal.isEmpty {
            let text = expected.dateOriginal.hasSuffix("Z") ? expected.dateOriginal : expected.dateOriginal + "Z"
            #expect(metadata.creationDate == ISO8601DateFormatter().date(from: text))
        }
    }

    @Test(arguments: ["truncated.jpg", "garbage.webp", "empty.gif"])
    func brokenFilesGiveAMediaError(_ name: String) throws {
        let url = ExpectedSample.samples.appendingPathComponent("malformed/\(name)")
        do {
            _ = try MetadataReader.read(fileAt: url)
            Issue.record("\(name) should not read as media")
        } catch let error as MediaError {
            #expect(error.code == .malformed)
            #expect(error.message.contains(name))
        }
    }

    @Test func textIsNotMedia() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString).jpg")
        try Data("just some text, whatever the name says".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: MediaError(.unsupportedFormat, "\(url.lastPathComponent) is not JPEG, PNG, HEIC, WebP, GIF, MP4 or MOV")) {
            try MetadataReader.read(fileAt: url)
        }
    }

    @Test func syntheticMovieReadsBackWithItsSize() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("synthetic-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        try SyntheticMovie.write(to: url, mediaBytes: 3_000_000, width: 1280, height: 720, durationSeconds: 42)
        let metadata = try MetadataReader.read(fileAt: url)
        #expect(metadata.type == .mpeg4Movie)
        #expect(metadata.pixelWidth == 1280)
        #expect(metadata.pixelHeight == 720)
        #expect(metadata.duration == 42)
        #expect(metadata.creationDate != nil)
    }

    @Test func sniffingIgnoresTheFileName() {
        #expect(ContentSniffer.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ContentSniffer.sniff(Data("GIF89a".utf8)) == .gif)
        #expect(ContentSniffer.sniff(Data([0, 0, 0, 24] + Array("ftypheic".utf8))) == .heic)
        #expect(ContentSniffer.sniff(Data([0, 0, 0, 24] + Array("ftypqt  ".utf8))) == .quickTimeMovie)
        #expect(ContentSniffer.sniff(Data([0, 0, 0, 24] + Array("ftypavif".utf8))) == nil)
        #expect(ContentSniffer.sniff(Data()) == nil)
    }
}

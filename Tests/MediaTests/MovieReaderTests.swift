import Foundation
import Media
import Testing

@Suite struct MovieReaderTests {
    @Test func clipIsTwoSecondsOfH264() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.library("clip.mp4"))
        #expect(metadata.type == .mpeg4Movie)
        #expect(metadata.pixelWidth == 160)
        #expect(metadata.pixelHeight == 120)
        #expect(metadata.codec == "h264")
        #expect(abs((metadata.duration ?? 0) - 2.0) < 0.01)
        #expect(metadata.frameCount == 20)
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2024-05-01T10:00:00Z"))
        #expect(metadata.rotation == nil)
        #expect(metadata.location == nil)
        #expect(metadata.hasAlpha == nil)
    }

    /// Samples/extra/located.mov: clip.mp4 re-muxed with a display matrix, location, make and model.
    @Test func locatedMovieCarriesRotationPlaceAndCamera() throws {
        let metadata = try MetadataReader.read(fileAt: SampleFiles.extra("located.mov"))
        #expect(metadata.type == .quickTimeMovie)
        #expect(metadata.pixelWidth == 160)
        #expect(metadata.pixelHeight == 120)
        #expect(metadata.rotation == 90)
        #expect(metadata.cameraMake == "Lightbox")
        #expect(metadata.cameraModel == "Sample Camera 3")
        #expect(metadata.creationDate == ISO8601DateFormatter().date(from: "2024-05-02T08:15:00Z"))
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 59.9139) < 1e-4)
        #expect(abs(location.longitude - 10.7522) < 1e-4)
        #expect(location.altitude == 12)
    }

    @Test func aMovieCutInsideItsHeaderIsMalformed() throws {
        let bytes = try SampleFiles.bytes(SampleFiles.library("clip.mp4"))
        try SampleFiles.withTemporaryFile(bytes.prefix(500), named: "cut.mp4") { url in
            #expect(throws: MediaError.self) { try MetadataReader.read(fileAt: url) }
        }
    }

    /// A 4 GiB movie whose header comes last, behind its media data: reading its metadata must seek
    /// there, not read through. The file is sparse, so it costs no disk.
    @Test func aLargeMovieIsReadByItsHeadersOnly() throws {
        let clip = try SampleFiles.bytes(SampleFiles.library("clip.mp4"))
        let (ftyp, moov, rest) = (clip.subdata(in: 0..<32), clip.subdata(in: 32..<1058), clip.subdata(in: 1058..<clip.count))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let filler: UInt64 = 4 << 30
        try (ftyp + rest).write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        // A 64-bit `free` box of `filler` bytes, left as a hole, then the movie header.
        var largeSize = (filler + 16).bigEndian
        try handle.write(contentsOf: Data([0, 0, 0, 1]) + Data("free".utf8) + Data(bytes: &largeSize, count: 8))
        try handle.seek(toOffset: try handle.offset() + filler)
        try handle.write(contentsOf: moov)
        try handle.close()

        let bytesBefore = ProcessIO.bytesRead()
        let started = Date()
        let metadata = try MetadataReader.read(fileAt: url)
        let seconds = Date().timeIntervalSince(started)
        #expect(metadata.pixelWidth == 160)
        #expect(abs((metadata.duration ?? 0) - 2.0) < 0.01)
        #expect(seconds < 2, "reading a 4 GiB movie's metadata took \(seconds) s")
        if let before = bytesBefore, let after = ProcessIO.bytesRead() {
            // Generous: other tests read files at the same time.
            #expect(after - before < 64 << 20, "read \(after - before) bytes of a 4 GiB file")
        }
    }
}

/// What this process has read so far (Linux's /proc/self/io `rchar`), or nil where unavailable.
enum ProcessIO {
    static func bytesRead() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("rchar:") }
        return line.flatMap { UInt64($0.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) }
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization
import Testing

/// Movies as PhotoKit apps get them, through the real services: fast and medium H.264 derivatives
/// made once and reused, high as the original, the compatible H.264 representation of an HEVC
/// movie, and movies without their location. Delivered files are read back with ffprobe.
@Suite(.serialized) struct VideoDeliveryTests {
    static let folders = [ServiceHarness.samples, ServiceHarness.extraSamples]



    /// The derived file of one kind in the picker's cache, and when it was written.
    func derived(_ kind: String, _ harness: ServiceHarness) throws -> (URL, Date?) {
        let folder = harness.directory.dataDirectory.appendingPathComponent("picker/derived")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(kind) }
        try #require(files.count == 1, "\(files)")
        let url = folder.appendingPathComponent(files[0])
        return (url, try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
    }

    @Test func fastAndMediumAreH264MadeOnceAndHighIsTheOriginal() async throws {
        let harness = try await ServiceHarness.start(importFolders: Self.folders)
        defer { harness.stop() }
        let app = try await harness.registerApp("player")
        // With the precise location: the original itself (LocationConsentTests has what comes without).
        try await harness.grantFullAccess(to: "player", location: .precise)
        let manager = ImageManager(picker: app)
        let hevc = try await harness.asset(named: "hevc.mov")
        let original = ServiceHarness.extraSamples.appendingPathComponent("hevc.mov")

        let reports = Mutex<[TranscodeProgress]>([])
        let fast = harness.root.appendingPathComponent("fast.mp4")
        let request = VideoRequest(asset: hevc.identifier, deliveryMode: .fastFormat)
        let started = ContinuousClock.now
        #expect(try await manager.requestVideo(request, to: fast, transcoding: { step in reports.withLock { $0.append(step) } })
            == .file(fast, deliveredQuality: "fast"))
        print("video.request fast for hevc.mov (transcode and stream): \(ContinuousClock.now - started)")
        let probe = try FFprobe.read(fast)
        #expect(probe.formatName.contains("mp4"))
        #expect(probe.video?.codec == "h264" && probe.video?.width == 480 && probe.video?.height == 360)
        #expect(probe.audio?.codec == "aac")
        let seen = reports.withLock { $0 }
        // ffmpeg's own reports (it starts at 0) and the picker's last one, at 100 %.
        #expect(seen.count >= 2, "\(seen)")
        #expect(seen.first.map { $0.completed < $0.total } == true, "\(seen)")
        #expect(seen.last.map { $0.completed == $0.total && $0.total > 1.9 } == true, "\(seen)")
        #expect(seen.map(\.completed) == seen.map(\.completed).sorted())
        let (cached, made) = try derived("video-360p.mp4", harness)

        // The second request streams the cached derivative: no progress, same bytes, same file.
        let again = harness.root.appendingPathComponent("fast-again.mp4")
        let second = Mutex<[TranscodeProgress]>([])
        #expect(try await manager.requestVideo(request, to: again, transcoding: { step in second.withLock { $0.append(step) } })
            == .file(again, deliveredQuality: "fast"))
        #expect(second.withLock { $0 }.isEmpty)
        #expect(try sha256(again) == sha256(fast))
        #expect(try sha256(cached) == sha256(fast))
        #expect(try derived("video-360p.mp4", harness).1 == made, "the derivative was made again instead of reused")

        let medium = harness.root.appendingPathComponent("medium.mp4")
        #expect(try await manager.requestVideo(VideoRequest(asset: hevc.identifier, deliveryMode: .mediumQualityFormat), to: medium)
            == .file(medium, deliveredQuality: "medium"))
        let mediumProbe = try FFprobe.read(medium)
        // 640×480 is within 720p: kept, never enlarged.
        #expect(mediumProbe.video?.codec == "h264" && mediumProbe.video?.width == 640 && mediumProbe.video?.height == 480)

        // The CLI asks by quality and gets the cached medium file.
        let cliFile = harness.root.appendingPathComponent("cli-medium.mp4")
        let cli = try await harness.cli(["video", hevc.identifier, "--app", "player", "--quality", "medium", "--out", cliFile.path])
        #expect(cli.status == 0, "\(cli.errors)")
        #expect(cli.output.contains("\tmedium"))
        #expect(try sha256(cliFile) == sha256(medium))

        for mode in [VideoDeliveryMode.highQualityFormat, .automatic] {
            let high = harness.root.appendingPathComponent("high-\(mode).mov")
            #expect(try await manager.requestVideo(VideoRequest(asset: hevc.identifier, deliveryMode: mode), to: high)
                == .file(high, deliveredQuality: "original"))
            #expect(try sha256(high) == sha256(original))
        }

        // A rotated movie is turned upright in its derivatives.
        let located = try await harness.asset(named: "located.mov")
        let upright = harness.root.appendingPathComponent("located-fast.mp4")
        _ = try await manager.requestVideo(VideoRequest(asset: located.identifier, deliveryMode: .fastFormat), to: upright)
        let uprightProbe = try FFprobe.read(upright)
        #expect(uprightProbe.video?.codec == "h264" && uprightProbe.video?.width == 120 && uprightProbe.video?.height == 160)

        // Two requests at once for a derivative not made yet both get it whole (the cache shares
        // one making of it), and the cache holds one file and no partial ones.
        let clip = try await harness.asset(named: "clip.mp4")
        let copyOne = harness.root.appendingPathComponent("clip-1.mp4")
        let copyTwo = harness.root.appendingPathComponent("clip-2.mp4")
        async let one = manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .mediumQualityFormat), to: copyOne)
        async let two = manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .mediumQualityFormat), to: copyTwo)
        #expect(try await [one, two] == [.file(copyOne, deliveredQuality: "medium"), .file(copyTwo, deliveredQuality: "medium")])
        #expect(try sha256(copyOne) == sha256(copyTwo))
        let cache = harness.directory.dataDirectory.appendingPathComponent("picker/derived")
        let files = try FileManager.default.subpathsOfDirectory(atPath: cache.path)
        #expect(files.filter { $0.hasSuffix("video-720p.mp4") }.count == 2, "hevc.mov's and clip.mp4's: \(files)")
        #expect(!files.contains { $0.contains("partial") }, "\(files)")
    }

    @Test func hevcMoviesHaveACompatibleH264Representation() async throws {
        let harness = try await ServiceHarness.start(importFolders: Self.folders)
        defer { harness.stop() }
        let app = try await harness.registerApp("sharer")
        let original = try Data(contentsOf: ServiceHarness.extraSamples.appendingPathComponent("hevc.mov"))

        let compatible = try await harness.pickProvider(named: "hevc.mov", as: app, PickerConfiguration(preferredAssetRepresentationMode: .compatible, location: .precise))
        #expect(compatible.registeredTypeIdentifiers == [.mpeg4Movie])
        let file = harness.root.appendingPathComponent("compatible.mp4")
        try await compatible.loadFileRepresentation(to: file)
        let probe = try FFprobe.read(file)
        #expect(probe.formatName.contains("mp4"))
        #expect(probe.video?.codec == "h264" && probe.video?.width == 640 && probe.video?.height == 480)
        #expect(probe.audio?.codec == "aac")

        let automatic = try await harness.pickProvider(named: "hevc.mov", as: app)
        #expect(automatic.registeredTypeIdentifiers == [.quickTimeMovie, .mpeg4Movie])
        #expect(try await automatic.loadDataRepresentation() == original)
        #expect(try await automatic.loadDataRepresentation(for: .mpeg4Movie) == (try Data(contentsOf: file)), "the compatible file is reused")

        let current = try await harness.pickProvider(named: "hevc.mov", as: app, PickerConfiguration(preferredAssetRepresentationMode: .current, location: .precise))
        #expect(current.registeredTypeIdentifiers == [.quickTimeMovie])
        #expect(await errorCode { try await current.loadDataRepresentation(for: .mpeg4Movie) } == .typeNotRegistered)

        // H.264 movies are compatible already.
        let clip = try await harness.pickProvider(named: "clip.mp4", as: app, PickerConfiguration(preferredAssetRepresentationMode: .compatible))
        #expect(clip.registeredTypeIdentifiers == [.mpeg4Movie])
        #expect(try await clip.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("clip.mp4"))))
    }

    @Test func moviesCanBeDeliveredWithoutTheirLocation() async throws {
        let harness = try await ServiceHarness.start(importFolders: Self.folders)
        defer { harness.stop() }
        let app = try await harness.registerApp("private")
        let coordinates = Data("+59.9139".utf8)

        // Without stripping the location is there: what follows can fail.
        let plain = harness.root.appendingPathComponent("plain.mov")
        try await harness.pickProvider(named: "located.mov", as: app).loadFileRepresentation(to: plain)
        #expect(try FFprobe.read(plain).tags.keys.contains { $0.lowercased().contains("location") })
        #expect(try Data(contentsOf: plain).range(of: coordinates) != nil)

        let withoutLocation = try await harness.pickProvider(named: "located.mov", as: app, PickerConfiguration(stripMetadata: .location))
        #expect(withoutLocation.registeredTypeIdentifiers == [.quickTimeMovie])
        let file = harness.root.appendingPathComponent("no-location.mov")
        try await withoutLocation.loadFileRepresentation(to: file)
        let probe = try FFprobe.read(file)
        #expect(!probe.tags.keys.contains { $0.lowercased().contains("location") }, "\(probe.tags)")
        #expect(try Data(contentsOf: file).range(of: coordinates) == nil)
        #expect(probe.tags["make"] == "Lightbox")
        #expect(probe.video?.codec == "h264" && probe.video?.rotation == -90)
        // The app can read what it got: Lightbox's reader (libavformat) sees the same movie.
        let read = try MetadataReader.read(fileAt: file)
        #expect(read.location == nil && read.rotation == 90 && read.pixelWidth == 160 && read.pixelHeight == 120)
        #expect(abs((read.duration ?? 0) - 2) < 0.1)

        // The owner removes everything when choosing.
        let bare = harness.root.appendingPathComponent("bare.mov")
        try await harness.pickProvider(named: "located.mov", as: app, strip: .all).loadFileRepresentation(to: bare)
        let bareProbe = try FFprobe.read(bare)
        #expect(bareProbe.tags["make"] == nil && bareProbe.tags["model"] == nil && bareProbe.tags["creation_time"] == nil, "\(bareProbe.tags)")
        #expect(!bareProbe.tags.keys.contains { $0.lowercased().contains("location") })
        #expect(bareProbe.video?.rotation == -90)

        // The compatible version of an HEVC movie without its location: transcoded, then remuxed.
        let both = try await harness.pickProvider(named: "hevc.mov", as: app, PickerConfiguration(preferredAssetRepresentationMode: .compatible, stripMetadata: .location))
        let compatible = harness.root.appendingPathComponent("compatible-no-location.mp4")
        try await both.loadFileRepresentation(to: compatible)
        let compatibleProbe = try FFprobe.read(compatible)
        #expect(compatibleProbe.video?.codec == "h264")
        #expect(!compatibleProbe.tags.keys.contains { $0.lowercased().contains("location") }, "\(compatibleProbe.tags)")
        #expect(try Data(contentsOf: compatible).range(of: Data("+48.8584".utf8)) == nil)
    }
}

/// What ffprobe (Debian's, not Lightbox's reader) says about a delivered movie.
struct FFprobe {
    struct Stream {
        var codec: String
        var width: Int?
        var height: Int?
        var rotation: Int?
    }

    var formatName: String
    /// The container's and the streams' tags together.
    var tags: [String: String]
    var video: Stream?
    var audio: Stream?

    static func read(_ file: URL) throws -> FFprobe {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-show_format", "-show_streams", "-of", "json", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let format = json["format"] as? [String: Any] else {
            throw LightboxError(.badMedia, "ffprobe could not read \(file.lastPathComponent)")
        }
        var result = FFprobe(formatName: format["format_name"] as? String ?? "", tags: format["tags"] as? [String: String] ?? [:])
        for stream in json["streams"] as? [[String: Any]] ?? [] {
            for (key, value) in stream["tags"] as? [String: String] ?? [:] { result.tags["stream:\(key)"] = value }
            let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
            let parsed = Stream(codec: stream["codec_name"] as? String ?? "", width: stream["width"] as? Int, height: stream["height"] as? Int,
                                rotation: sideData.compactMap { $0["rotation"] as? Int }.first)
            switch stream["codec_type"] as? String {
            case "video" where result.video == nil: result.video = parsed
            case "audio" where result.audio == nil: result.audio = parsed
            default: break
            }
        }
        return result
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import Testing

/// Motion Photos (a still with its movie inside, Samples/motion) through both services: each layout
/// is one Live Photo asset whose item provider loads the whole original as the still and the
/// embedded MP4 as the movie (read back with ffprobe); a file whose XMP lies about its movie stays a plain still.
@Suite(.serialized) struct MotionPhotoTests {
    static let motion = ServiceHarness.repository.appendingPathComponent("Samples/motion")
    static let layouts = ["google-container.MP.jpg", "google-container.MP.heic", "microvideo.jpg", "samsung.jpg"]

    @Test func eachLayoutIsALivePhotoWhoseMovieIsTheEmbeddedMP4() async throws {
        let harness = try await ServiceHarness.start(importFolders: [Self.motion])
        defer { harness.stop() }
        let owner = try await harness.owner()
        let all = try await owner.assetPage(limit: 500).assets
        #expect(Set(all.map(\.fileName)) == Set(Self.layouts + ["lying-length.jpg"]))
        let live = try await owner.assetPage(filter: .livePhotos, limit: 500).assets
        #expect(Set(live.map(\.fileName)) == Set(Self.layouts), "the lying file is a plain still")

        let movie = try Data(contentsOf: ServiceHarness.repository.appendingPathComponent("Samples/library/clip.mp4"))
        let app = try await harness.registerApp("motion-viewer")
        for name in Self.layouts {
            // Asked and given with its precise location: without it, a still's XMP (the Motion Photo's
            // description among it) is removed whole, and the still is no longer the original.
            async let items = PhotoPicker(connection: app).pick(PickerConfiguration(filter: .livePhotos, location: .precise),
                                                                timeout: .seconds(30))
            let pick = try await harness.pendingPick(owner)
            let asset = try #require(live.first { $0.fileName == name })
            try await owner.choose([asset.identifier], for: pick.pick, location: .precise)
            let provider = try #require(try await items.first).itemProvider
            let still: UTType = name.hasSuffix(".heic") ? .heic : .jpeg
            #expect(provider.registeredTypeIdentifiers.prefix(2) == [.livePhoto, still], "\(name)")
            #expect(provider.registeredTypeIdentifiers.last == .mpeg4Movie, "\(name)")
            let original = try Data(contentsOf: Self.motion.appendingPathComponent(name))
            #expect(try await provider.loadDataRepresentation(for: still) == original, "\(name): the still is the whole original")
            let delivered = try await provider.loadDataRepresentation(for: .mpeg4Movie)
            #expect(delivered == movie, "\(name): the movie is the embedded MP4")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("motion-\(UUID().uuidString).mp4")
            defer { try? FileManager.default.removeItem(at: file) }
            try delivered.write(to: file)
            #expect(try FFprobe.read(file).video?.codec == "h264", "\(name): ffprobe reads the delivered movie")
        }
    }
}

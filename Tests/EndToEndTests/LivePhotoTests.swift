import Foundation
import LightboxClient
import LightboxProtocol
import Testing

/// Live Photos through both services: import pairs, the owner sees one asset, the livePhotos filter
/// finds it, and its item provider registers and loads the bundle, the still and the movie.
@Suite(.serialized) struct LivePhotoTests {
    static let live = ServiceHarness.repository.appendingPathComponent("Samples/live")

    @Test func aPairedStillAndMovieAreOneLivePhotoWithBothResources() async throws {
        let harness = try await ServiceHarness.start(importFolders: [Self.live])
        defer { harness.stop() }
        let owner = try await harness.owner()
        let all = try await owner.assetPage(limit: 500).assets
        #expect(Set(all.map(\.fileName)) == ["identified.jpg", "IMG_0002.JPG"], "the movies are not separate assets")
        let live = try await owner.assetPage(filter: .livePhotos, limit: 500).assets
        #expect(Set(live.map(\.fileName)) == ["identified.jpg", "IMG_0002.JPG"])
        #expect(live.allSatisfy { $0.subtypes.contains(.livePhoto) })
        #expect(try await owner.assetPage(filter: .not(.livePhotos), limit: 500).assets.isEmpty)

        let app = try await harness.registerApp("live-viewer")
        async let items = PhotoPicker(connection: app).pick(PickerConfiguration(filter: .livePhotos), timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        let identified = try #require(live.first { $0.fileName == "identified.jpg" })
        try await owner.choose([identified.identifier], for: pick.pick)
        let provider = try #require(try await items.first).itemProvider
        #expect(provider.registeredTypeIdentifiers == [.livePhoto, .jpeg, .quickTimeMovie])

        let still = try Data(contentsOf: Self.live.appendingPathComponent("identified.jpg"))
        let movie = try Data(contentsOf: Self.live.appendingPathComponent("movie-of-identified.mov"))
        #expect(try await provider.loadDataRepresentation(for: .jpeg) == still)
        #expect(try await provider.loadDataRepresentation(for: .livePhoto) == still)
        #expect(try await provider.loadDataRepresentation(for: .quickTimeMovie) == movie)
        #expect(try await provider.loadDataRepresentation(for: .movie) == movie)
    }
}

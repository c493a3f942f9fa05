import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Testing

/// What the owner's surface reads from the picker: keyset pages with filters in SQL, thumbnails and
/// poster frames, asset details; and the auth side's per-app detail.
@Suite(.serialized) struct OwnerCatalogTests {
    @Test func pagesWalkTheLibraryNewestFirstWithoutGapsOrRepeats() async throws {
        let harness = try await ServiceHarness.start(importFolders: [ServiceHarness.samples, ServiceHarness.extraSamples])
        defer { harness.stop() }
        let owner = try await harness.owner()

        var walked: [AssetSummary] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await owner.assetPage(limit: 2, after: cursor)
            #expect(page.assets.count <= 2)
            walked += page.assets
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 50
        // Samples/library (7) and Samples/extra (3).
        #expect(walked.count == 10)
        #expect(Set(walked.map(\.identifier)).count == walked.count)
        #expect(pages == 5)
        let dates = walked.map(\.creationDate)
        #expect(dates == dates.sorted(by: >), "newest first")

        let whole = try await owner.assetPage(limit: 500)
        #expect(whole.next == nil)
        #expect(whole.assets.map(\.identifier) == walked.map(\.identifier))
    }

    @Test func filtersApplyInTheQuery() async throws {
        let harness = try await ServiceHarness.start(importFolders: [ServiceHarness.samples, ServiceHarness.extraSamples])
        defer { harness.stop() }
        let owner = try await harness.owner()
        let all = try await owner.assetPage(limit: 500).assets

        let videos = try await owner.assetPage(filter: .videos, limit: 500).assets
        #expect(Set(videos.map(\.fileName)) == ["clip.mp4", "located.mov", "hevc.mov"])
        let animated = try await owner.assetPage(filter: .animatedImages, limit: 500).assets
        #expect(Set(animated.map(\.fileName)) == ["bounce.gif", "spinner.webp"])
        let stills = try await owner.assetPage(filter: .all([.images, .not(.animatedImages)]), limit: 500).assets
        #expect(stills.count == all.count - videos.count - animated.count)
        #expect(try await owner.assetPage(filter: .any([]), limit: 500).assets.isEmpty)
        for filter: PickerFilter in [.videos, .animatedImages, .not(.videos), .any([.videos, .animatedImages])] {
            let page = try await owner.assetPage(filter: filter, limit: 500).assets
            let expected = all.filter { filter.matches(AssetTraits(mediaType: $0.mediaType, subtypes: Set($0.subtypes))) }
            #expect(page.map(\.identifier) == expected.map(\.identifier), "\(filter)")
        }

        // A pick's own filter applies to the owner's pages for it.
        let app = try await harness.registerApp("stills-only")
        async let picked = PhotoPicker(connection: app).pick(PickerConfiguration(filter: .videos), timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        let offered = try await owner.assetPage(pick: pick.pick, limit: 1)
        #expect(offered.assets.count == 1 && offered.assets[0].mediaType == .video)
        let rest = try await owner.assetPage(pick: pick.pick, limit: 2, after: offered.next)
        #expect(rest.assets.count == 2 && rest.next == nil && rest.assets.allSatisfy { $0.mediaType == .video })
        try await owner.cancel(pick.pick)
        #expect(try await picked.isEmpty)

        #expect(await errorCode { try await owner.assetPage(after: "not-a-cursor") } == .badRequest)
    }

    @Test func thumbnailsAndPosterFramesForTheOwnerOnly() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let assets = try await owner.assets()
        let harbour = try #require(assets.first { $0.fileName == "harbour.jpg" })
        let clip = try #require(assets.first { $0.fileName == "clip.mp4" })

        let (info, jpeg) = try await owner.thumbnail(of: harbour.identifier, side: 128)
        #expect(info.type == .jpeg && max(info.pixelWidth ?? 0, info.pixelHeight ?? 0) == 128)
        let file = harness.root.appendingPathComponent("thumb.jpg")
        try jpeg.write(to: file)
        let metadata = try MetadataReader.read(fileAt: file)
        #expect(metadata.type == .jpeg && metadata.pixelWidth == info.pixelWidth && metadata.pixelHeight == info.pixelHeight)
        #expect(metadata.location == nil, "thumbnails carry no metadata")
        // The same thumbnail again is the cached one, with the same validator.
        let again = try await owner.thumbnail(of: harbour.identifier, side: 128)
        #expect(again.info.etag == info.etag && again.jpeg == jpeg)
        #expect(try await owner.thumbnail(of: harbour.identifier, side: 64).info.etag != info.etag)

        let poster = try await owner.thumbnail(of: clip.identifier, side: 96)
        #expect(poster.info.type == .jpeg)
        let posterFile = harness.root.appendingPathComponent("poster.jpg")
        try poster.jpeg.write(to: posterFile)
        let posterMetadata = try MetadataReader.read(fileAt: posterFile)
        #expect(posterMetadata.mediaType == .image && max(posterMetadata.pixelWidth ?? 0, posterMetadata.pixelHeight ?? 0) <= 96)

        #expect(await errorCode { try await owner.thumbnail(of: "00000000-0000-0000-0000-000000000000/L0/001") } == .notFound)
        let app = try await harness.registerApp("snoop")
        let asApp = OwnerSurface(picker: app)
        #expect(await errorCode { try await asApp.thumbnail(of: harbour.identifier) } == .notAuthorized)
        #expect(await errorCode { try await asApp.details(of: harbour.identifier) } == .notAuthorized)
        #expect(await errorCode { try await asApp.assetPage() } == .notAuthorized)
    }

    @Test func detailsAndAccessDetail() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let harbour = try #require(try await owner.assets().first { $0.fileName == "harbour.jpg" })
        let details = try await owner.details(of: harbour.identifier)
        #expect(details.summary == harbour)
        #expect(details.properties["{TIFF}"]?["Make"] == .string("Lightbox"))
        #expect(details.properties["{GPS}"]?["LatitudeRef"] == .string("N"))

        _ = try await harness.registerApp("editor", usageReadWrite: "To edit your photos")
        let settings = try await harness.settings()
        try await settings.setAccess(SetAccessRequest(app: "editor", readWrite: .limited, selection: [harbour.identifier]))
        let detail = try await settings.accessDetail(of: "editor")
        #expect(detail.access.readWrite == .limited && detail.selection == [harbour.identifier])
        #expect(detail.usageReadWrite == "To edit your photos")
        #expect(await errorCode { try await settings.accessDetail(of: "nobody") } == .notFound)
    }
}

import Foundation
import LightboxProtocol
import Logging
import Media
import Testing
@testable import Picker

/// The one place renditions are named, kept and made: distinct renditions never share a file, a
/// still read once is answered from memory, the disk stays within its quota, and concurrent
/// requests for a still not made yet share one making.
@Suite struct RenditionStoreTests {
    static let library = PickerFixture.samples.appendingPathComponent("library")

    /// A fixture with the sample library imported, and its photo `harbour.jpg`.
    func harbour() async throws -> (PickerFixture, AssetRecord) {
        let fixture = try PickerFixture()
        _ = try await fixture.importer.importFolder(Self.library) { _ in }
        let asset = try #require(try await fixture.catalog.allAssets().first { $0.fileName == "harbour.jpg" })
        return (fixture, asset)
    }

    func store(_ fixture: PickerFixture, quota: Int64 = 1 << 30) -> RenditionStore {
        RenditionStore(catalog: fixture.catalog, quota: quota, pool: fixture.pool, timeLimit: .seconds(30), logger: Logger(label: "test"))
    }

    func fileSize(_ url: URL) -> Int64 {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int64(status.st_size) : -1
    }

    @Test func everyKindHasANameOfItsOwnAndTheNamesCachesAlreadyUse() {
        var kinds: [RenditionKey.Kind] = [.compatibleJPEG]
        for width in [128, 256] {
            for height in [128, 256] {
                for mode in [ImageContentMode.fit, .fill] {
                    for quality in [60, 90] { kinds.append(.image(width: width, height: height, mode: mode, quality: quality)) }
                }
            }
        }
        kinds += [128, 256].map { .poster(side: $0) }
        kinds += VideoDerivative.allCases.map { .movie($0) }
        for source in [RenditionKey.Source.original, .compatible, .fast, .medium] {
            for removal in MetadataRemoval.allCases {
                for fileExtension in ["jpg", "mp4", "mov"] { kinds.append(.stripped(source, removal, fileExtension: fileExtension)) }
            }
        }
        let names = kinds.map { RenditionKey(contentHash: "abcdef", kind: $0).fileName }
        #expect(Set(names).count == kinds.count, "no two renditions share a file")
        #expect(RenditionKey(contentHash: "ab", kind: .image(width: 128, height: 96, mode: .fill, quality: 90)).fileName == "ab.thumb-128x96-fill-q90")
        #expect(RenditionKey(contentHash: "ab", kind: .poster(side: 256)).fileName == "ab.poster-256")
        #expect(names.contains("abcdef.video-360p.mp4") && names.contains("abcdef.video-720p.mp4") && names.contains("abcdef.video-compatible.mp4"))
        #expect(names.contains("abcdef.compatible.jpg") && names.contains("abcdef.original.no-location.jpg")
            && names.contains("abcdef.compatible.no-all.mp4") && names.contains("abcdef.original.approximate-location.jpg"))
    }

    @Test func concurrentRequestsForAStillNotMadeYetShareOneMaking() async throws {
        let (fixture, asset) = try await harbour()
        defer { fixture.remove() }
        let store = store(fixture)
        let renditions = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<8 { group.addTask { try await store.image(of: asset, width: 120, height: 120, mode: .fit, quality: 80).data } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(renditions.count == 8 && Set(renditions).count == 1)
        let file = store.url(of: RenditionKey(contentHash: asset.contentHash, kind: .image(width: 120, height: 120, mode: .fit, quality: 80)))
        #expect(fileSize(file) == Int64(renditions[0].count))
        #expect(await store.size == fileSize(file), "made and counted once")
    }

    @Test func aStillReadOnceFromDiskIsAnsweredFromMemory() async throws {
        let (fixture, asset) = try await harbour()
        defer { fixture.remove() }
        let store = store(fixture)
        let made = try await store.image(of: asset, width: 100, height: 80, mode: .fill, quality: 70)
        #expect(made.type == .jpeg && made.width == 100 && made.height == 80)
        let file = store.url(of: RenditionKey(contentHash: asset.contentHash, kind: .image(width: 100, height: 80, mode: .fill, quality: 70)))
        #expect(try await store.image(of: asset, width: 100, height: 80, mode: .fill, quality: 70).data == made.data)  // read from disk
        try FileManager.default.removeItem(at: file)
        let remembered = try await store.image(of: asset, width: 100, height: 80, mode: .fill, quality: 70)
        #expect(remembered.data == made.data && remembered.width == 100)
        #expect(!FileManager.default.fileExists(atPath: file.path), "answered from memory, not made again")
    }

    @Test func theLeastRecentlyUsedRenditionsGoWhenTheDiskIsOverItsQuota() async throws {
        let (fixture, asset) = try await harbour()
        defer { fixture.remove() }
        let measured = store(fixture)
        let one = Int64(try await measured.image(of: asset, width: 100, height: 100, mode: .fit, quality: 80).data.count)
        try FileManager.default.removeItem(at: fixture.catalog.derived)
        // Room for two thumbnails of about that size, not three.
        let quota = one * 5 / 2
        let store = store(fixture, quota: quota)
        func key(_ side: Int) -> RenditionKey {
            RenditionKey(contentHash: asset.contentHash, kind: .image(width: side, height: side, mode: .fit, quality: 80))
        }
        func exists(_ side: Int) -> Bool { FileManager.default.fileExists(atPath: store.url(of: key(side)).path) }
        _ = try await store.image(of: asset, width: 100, height: 100, mode: .fit, quality: 80)
        _ = try await store.image(of: asset, width: 101, height: 101, mode: .fit, quality: 80)
        _ = try await store.image(of: asset, width: 100, height: 100, mode: .fit, quality: 80)  // read in place: 100 is now the most recent
        #expect(exists(100) && exists(101))
        _ = try await store.image(of: asset, width: 102, height: 102, mode: .fit, quality: 80)
        #expect(exists(100) && !exists(101) && exists(102))
        #expect(await store.size <= quota)
    }

    @Test func theImportsOwnerThumbnailIsTheOneTheOwnerIsServed() async throws {
        let (fixture, asset) = try await harbour()
        defer { fixture.remove() }
        let store = store(fixture)
        let original = fixture.catalog.originalURL(of: asset)
        let hash = asset.contentHash
        // As the import makes it: on a pool thread, counted afterwards.
        let added = try await fixture.pool.run { try store.makeOwnerThumbnail(ofStored: original, contents: nil, contentHash: hash) }
        await store.counted(madeElsewhere: added)
        #expect(added > 0)
        let thumbnail = try await store.ownerThumbnail(of: asset, side: RenditionKey.ownerThumbnailSide)
        #expect(Int64(thumbnail.data.count) == added)
        #expect(await store.size == added, "served from the import's file, nothing made again")
        #expect(try await fixture.pool.run { try store.makeOwnerThumbnail(ofStored: original, contents: nil, contentHash: hash) } == 0)
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import Testing

/// `library.query` pages by cursor: the same assets as one big page, in order, in both sorts,
/// within a limited selection too.
@Suite(.serialized) struct LibraryQueryPagingTests {
    func walk(_ library: PhotoLibrary, _ query: AssetQuery) async throws -> (assets: [AssetSummary], pages: Int) {
        var query = query
        var assets: [AssetSummary] = []
        var pages = 0
        repeat {
            let page = try await library.fetchAssets(query)
            assets += page.assets
            query.after = page.next
            pages += 1
        } while query.after != nil && pages < 50
        return (assets, pages)
    }

    @Test func cursorsWalkTheSameAssetsAsOnePage() async throws {
        let harness = try await ServiceHarness.start(importFolders: [ServiceHarness.samples, ServiceHarness.extraSamples])
        defer { harness.stop() }
        _ = try await harness.registerApp("reader")
        let settings = try await harness.settings()
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: .full))
        let library = try await harness.library(for: "reader")

        for sort in [AssetQuery.Sort.newestFirst, .oldestFirst] {
            let whole = try await library.fetchAssets(AssetQuery(sort: sort, limit: 100))
            #expect(whole.total == 10 && whole.next == nil)
            let walked = try await walk(library, AssetQuery(sort: sort, limit: 2))
            #expect(walked.pages == 5)
            #expect(walked.assets.map(\.identifier) == whole.assets.map(\.identifier), "\(sort)")
            let dates = walked.assets.map(\.creationDate)
            #expect(dates == (sort == .newestFirst ? dates.sorted(by: >) : dates.sorted()))
        }
        let images = try await walk(library, AssetQuery(mediaType: .image, limit: 3)).assets
        #expect(images.count == 7 && images.allSatisfy { $0.mediaType == .image })
        #expect(await errorCode { try await library.fetchAssets(AssetQuery(after: "bogus")) } == .badRequest)

        // A limited app pages through its selection only.
        let all = try await library.fetchAssets(AssetQuery(limit: 100)).assets
        let chosen = [all[0].identifier, all[3].identifier, all[5].identifier]
        _ = try await harness.registerApp("picky", preventAutomaticLimitedAccessAlert: true)
        try await settings.setAccess(SetAccessRequest(app: "picky", readWrite: .limited, selection: chosen))
        let limited = try await walk(try await harness.library(for: "picky"), AssetQuery(limit: 1))
        #expect(limited.assets.map(\.identifier) == chosen)
    }
}

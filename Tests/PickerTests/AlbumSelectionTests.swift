import Foundation
import GRDB
import LightboxProtocol
import Testing
@testable import Picker

/// A limited selection that follows albums, in the picker's catalog: the albums' members are joined
/// as they are when read (never copied per app), an asset seen two ways is seen once, and the change
/// log becomes insertions and removals only where the app's view of an asset really changes.
@Suite struct AlbumSelectionTests {
    @Test func theJoinFollowsMembershipAndCountsEachAssetOnce() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let imported = try await fixture.importer.importFolder(PickerFixture.samples.appendingPathComponent("library")) { _ in }.imported
        let (a, b, c, d) = (imported[0], imported[1], imported[2], imported[3])
        let family = try await fixture.catalog.createAlbum(title: "Family")
        let trips = try await fixture.catalog.createAlbum(title: "Trips")
        _ = try await fixture.catalog.setMembership(of: [a, b], in: family.identifier, isAdding: true)
        _ = try await fixture.catalog.setMembership(of: [b, c], in: trips.identifier, isAdding: true)
        let selections = SelectionTable(database: fixture.database)
        // Chosen: b (also in both albums) and d; following both albums.
        try await selections.replace(app: "frame", with: [b, d], albums: [family.identifier, trips.identifier], version: 1)

        #expect(try await selections.members(of: "frame", among: imported) == [a, b, c, d])
        let page = try await fixture.catalog.assets(matching: AssetQuery(limit: 10), inSelectionOf: "frame")
        #expect(page.total == 4 && Set(page.page.map(\.identifier)) == [a, b, c, d])

        // Taken out of Family, a is gone; b stays (chosen, and in Trips).
        _ = try await fixture.catalog.setMembership(of: [a, b], in: family.identifier, isAdding: false)
        #expect(try await selections.members(of: "frame", among: imported) == [b, c, d])
        #expect(try await fixture.catalog.assets(matching: AssetQuery(limit: 10), inSelectionOf: "frame").total == 3)
        let sizes = Dictionary(uniqueKeysWithValues: try await fixture.catalog.albums().map { ($0.identifier, $0.assetCount) })
        #expect(sizes[family.identifier] == 0 && sizes[trips.identifier] == 2)

        // An older answer never replaces a newer one; a newer one without albums stops the join.
        #expect(try await selections.replace(app: "frame", with: [d], version: 0) == false)
        try await selections.replace(app: "frame", with: [d], version: 2)
        #expect(try await selections.members(of: "frame", among: imported) == [d])
    }

    @Test func membershipChangesBecomeInsertionsAndRemovalsForTheApp() {
        func entry(_ token: Int64, _ kind: LibraryChangeLog.Kind, _ asset: String, _ album: String? = nil) -> LibraryChangeLog.Entry {
            LibraryChangeLog.Entry(token: token, kind: kind.rawValue, asset: asset, album: album, at: Date())
        }
        var membership = SelectionTable.Membership(chosen: ["chosen"], followed: ["family", "trips"])
        membership.albumsHolding = ["new": ["family"], "both": ["family", "trips"], "chosen": ["family"]]
        let changes = LibraryView.changes(in: [
            entry(1, .addedToAlbum, "new", "family"),       // new to the app: inserted
            entry(2, .addedToAlbum, "chosen", "family"),    // seen already: nothing
            entry(3, .addedToAlbum, "both", "trips"),       // seen through Family too: nothing
            entry(4, .addedToAlbum, "other", "elsewhere"),  // an album not followed: nothing
            entry(5, .removedFromAlbum, "gone", "family"),  // no longer seen: removed
            entry(6, .removedFromAlbum, "gone", "trips"),   // said already: once
            entry(7, .removed, "gone"),                     // not seen: nothing more
            entry(8, .changed, "new"),                      // seen: changed
            entry(9, .album, "new", "family"),              // albums stay the full-access apps'
        ], as: membership)
        #expect(changes.map(\.token) == [1, 5, 8])
        #expect(changes.flatMap(\.inserted) == ["new"] && changes.flatMap(\.removed) == ["gone"] && changes.flatMap(\.changed) == ["new"])
        #expect(changes.allSatisfy { $0.albums.isEmpty })
    }
}

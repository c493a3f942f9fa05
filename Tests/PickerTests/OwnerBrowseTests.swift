import Foundation
import GRDB
import LightboxProtocol
import Logging
import Places
import Testing
@testable import Picker

/// The pick sheet's browsing in SQL: a search by place, camera, date, kind or file name, an album
/// and "jump to year", each paged by the keyset cursor in library order; each filtered page reads
/// its own index rather than walking the library (EXPLAIN QUERY PLAN); and a photo's GPS position
/// named at import.
@Suite struct OwnerBrowseTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let start = ISO8601DateFormatter().date(from: "2023-01-01T12:00:00Z")!

    /// `count` assets a day apart, newest last: every third in Lisbon and the rest in Oslo; even
    /// ones by an iPhone, odd ones by a Pixel; every tenth a screenshot.
    static func library(_ count: Int) -> [AssetRecord] {
        (0..<count).map { index in
            let lisbon = index % 3 == 0
            return AssetRecord(
                identifier: String(format: "%08X-0000-0000-0000-000000000000/L0/001", index), contentHash: "hash\(index)",
                fileName: String(format: "IMG_%04d.jpg", index), storedPath: "aa/\(index).jpg", type: .jpeg, mediaType: .image,
                subtypes: index % 10 == 0 ? "screenshot" : "", pixelWidth: 8, pixelHeight: 8, frameCount: 1, duration: nil,
                fileSize: 100, creationDate: start.addingTimeInterval(Double(index) * 86_400), importedAt: start,
                city: lisbon ? "Lisbon" : "Oslo", country: lisbon ? "Portugal" : "Norway",
                camera: index % 2 == 0 ? "Apple iPhone 15 Pro" : "Google Pixel 8")
        }
    }

    /// Every asset `browse` finds, a page of `limit` at a time, in order.
    static func walk(_ catalog: Catalog, _ browse: OwnerBrowse, limit: Int = 25) async throws -> [String] {
        var found: [String] = []
        var cursor: LibraryCursor?
        repeat {
            let page = try await catalog.page(filter: nil, browse: browse, limit: limit, after: cursor)
            #expect(page.assets.count <= limit)
            found += page.assets.map(\.identifier)
            cursor = page.next
        } while cursor != nil
        return found
    }

    static func search(_ text: String) -> OwnerBrowse {
        OwnerBrowse(search: LibrarySearch(parsing: text, timeZone: utc))
    }

    @Test func searchesAndFiltersPageInLibraryOrder() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let records = Self.library(900)
        try await fixture.catalog.insert(records)
        let newestFirst = records.sorted(by: AssetRecord.precedesInLibrary)
        func expected(_ keep: (AssetRecord) -> Bool) -> [String] { newestFirst.filter(keep).map(\.identifier) }
        let year2024 = DateInterval(start: ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z")!,
                                    end: ISO8601DateFormatter().date(from: "2025-01-01T00:00:00Z")!)

        #expect(try await Self.walk(fixture.catalog, Self.search("Lisbon")) == expected { $0.city == "Lisbon" })
        #expect(try await Self.walk(fixture.catalog, Self.search("portugal")) == expected { $0.country == "Portugal" })
        #expect(try await Self.walk(fixture.catalog, Self.search("2024")) == expected { year2024.contains($0.creationDate) })
        #expect(try await Self.walk(fixture.catalog, Self.search("Lisbon 2024"))
            == expected { $0.city == "Lisbon" && year2024.contains($0.creationDate) })
        #expect(try await Self.walk(fixture.catalog, Self.search("march 2024"), limit: 7)
            == expected { ($0.creationDate >= ISO8601DateFormatter().date(from: "2024-03-01T00:00:00Z")!)
                && $0.creationDate < ISO8601DateFormatter().date(from: "2024-04-01T00:00:00Z")! })
        #expect(try await Self.walk(fixture.catalog, Self.search("iphone")) == expected { $0.camera == "Apple iPhone 15 Pro" })
        #expect(try await Self.walk(fixture.catalog, Self.search("screenshots oslo"))
            == expected { $0.subtypes == "screenshot" && $0.city == "Oslo" })
        #expect(try await Self.walk(fixture.catalog, Self.search("IMG_01")) == expected { $0.fileName.hasPrefix("IMG_01") })
        // Words that name nothing: no place, camera or file has them.
        #expect(try await Self.walk(fixture.catalog, Self.search("Reykjavik")).isEmpty)
        // "Jump to year": everything made before 2024, in order.
        let before = OwnerBrowse(before: year2024.start)
        #expect(try await Self.walk(fixture.catalog, before) == expected { $0.creationDate < year2024.start })
        // An album's assets.
        let album = try await fixture.catalog.createAlbum(title: "Trip")
        let members = records.filter { $0.city == "Lisbon" && $0.subtypes == "screenshot" }.map(\.identifier)
        _ = try await fixture.catalog.setMembership(of: members, in: album.identifier, isAdding: true)
        #expect(try await Self.walk(fixture.catalog, OwnerBrowse(album: album.identifier)) == expected { members.contains($0.identifier) })
    }

    /// The query plan of a page's statement, first and after a cursor.
    static func plans(_ database: DatabasePool, _ browse: OwnerBrowse) throws -> [String] {
        try database.read { db in
            let conditions = try browse.conditions(db)
            return try [nil, LibraryCursor(storedDate: "2024-06-01 12:00:00.000", identifier: "X")].map { cursor in
                let (statement, arguments) = try Catalog.pageStatement(db, conditions: conditions, order: .newestFirst, limit: 60, after: cursor)
                let rows = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: arguments ?? statement.arguments)
                return rows.map { $0["detail"] as String }.joined(separator: " | ")
            }
        }
    }

    /// Each filtered page seeks its index to the cursor and reads its rows in library order: no
    /// walk of the whole table, no sort of every match.
    @Test(arguments: [
        ("Lisbon", "asset_city_order"), ("Portugal", "asset_country_order"), ("Lisbon 2024", "asset_city_order"),
        ("iphone", "asset_camera_order"), ("2024", "asset_library_order"), ("march 2024", "asset_library_order"),
        ("screenshots", "asset_screenshot_order"),
    ])
    func aFilteredPageReadsItsIndex(_ text: String, _ index: String) async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        try await fixture.catalog.insert(Self.library(30))
        for plan in try Self.plans(fixture.database, Self.search(text)) {
            #expect(plan.contains("USING INDEX \(index)"), "\(text): \(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(text): \(plan)")
            #expect(!plan.contains("SCAN asset") || plan.contains("SCAN asset USING INDEX"), "\(text): \(plan)")
        }
        for plan in try Self.plans(fixture.database, OwnerBrowse(before: Self.start)) {
            #expect(plan.contains("USING INDEX asset_library_order") && !plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }

    /// A rare file name is read through the trigram index of file names and only its rows are
    /// sorted; the index follows renames and deletions.
    @Test func aRareFileNameIsFoundThroughItsIndex() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let records = Self.library(30)
        try await fixture.catalog.insert(records)
        for plan in try Self.plans(fixture.database, Self.search("IMG_0017")) {
            #expect(plan.contains("VIRTUAL TABLE") && plan.contains("SEARCH asset USING INTEGER PRIMARY KEY"), "\(plan)")
            #expect(!plan.contains("asset_library_order") && !plan.contains("SCAN asset "), "\(plan)")
        }
        let seventeen = try #require(records.first { $0.fileName == "IMG_0017.jpg" })
        #expect(try await Self.walk(fixture.catalog, Self.search("img_0017")) == [seventeen.identifier])
        // Two letters have no trigram: the library is walked, and finds the same.
        #expect(try await Self.walk(fixture.catalog, Self.search("17")).contains(seventeen.identifier))
        try await fixture.database.write { db in
            try db.execute(sql: "UPDATE asset SET fileName = 'Harbour at dusk.jpg' WHERE identifier = ?", arguments: [seventeen.identifier])
        }
        #expect(try await Self.walk(fixture.catalog, Self.search("IMG_0017")).isEmpty)
        #expect(try await Self.walk(fixture.catalog, Self.search("dusk")) == [seventeen.identifier])
        try await fixture.database.write { db in
            try db.execute(sql: "DELETE FROM asset WHERE identifier = ?", arguments: [seventeen.identifier])
        }
        #expect(try await Self.walk(fixture.catalog, Self.search("dusk")).isEmpty)
        let trigrams = try await fixture.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM assetFileName") }
        #expect(trigrams == 29)
    }

    /// A photo with a known GPS position (Samples/library/harbour.jpg, in Oslo's harbour) gets its
    /// city and country at import; one without GPS gets none; the camera comes from its EXIF.
    @Test func importNamesThePlaceAndTheCamera() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        var importer = fixture.importer
        importer.places = ReverseGeocoder(places: PlaceTable.parse("""
            59.91273\t10.74609\tOslo\tNorway\t1082575
            38.72509\t-9.14980\tLisbon\tPortugal\t517802
            """))
        _ = try await importer.importFolder(PickerFixture.samples.appendingPathComponent("library")) { _ in }
        let assets = try await fixture.catalog.allAssets()
        let harbour = try #require(assets.first { $0.fileName == "harbour.jpg" })
        #expect(harbour.city == "Oslo" && harbour.country == "Norway")
        #expect(harbour.camera == "Lightbox Sample Camera 1")
        let portrait = try #require(assets.first { $0.fileName == "portrait.jpg" })
        #expect(portrait.city == nil && portrait.country == nil && portrait.camera == "Lightbox Sample Camera 2")
        #expect(try await Self.walk(fixture.catalog, Self.search("oslo")) == [harbour.identifier])
        #expect(try await Self.walk(fixture.catalog, Self.search("Sample Camera 2")) == [portrait.identifier])
    }
}

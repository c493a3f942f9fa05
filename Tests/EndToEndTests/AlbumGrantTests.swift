import Foundation
import GRDB
import LightboxClient
import LightboxProtocol
import Testing

/// Live album grants end to end: a limited selection that follows an album sees what is added to the
/// album later and loses what is taken out, and its watcher is told both, as insertions and removals;
/// an asset also chosen on its own, or in another followed album, stays; the owner's picker offers
/// and returns albums; and an album of 100,000 members pages through the join like any selection.
@Suite(.serialized) struct AlbumGrantTests {
    typealias Collector = LibraryChangeTests.Collector

    @Test func aFollowedAlbumsAdditionsAndRemovalsReachTheApp() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let everything = try await owner.assets().map(\.identifier)
        let harbour = try await harness.asset(named: "harbour.jpg"), portrait = try await harness.asset(named: "portrait.jpg")
        let sunset = try await harness.asset(named: "sunset.png")

        // A full-access app keeps the albums; the photo frame may see "Family" and one photo of its own.
        _ = try await harness.registerApp("curator")
        _ = try await harness.registerApp("frame", preventAutomaticLimitedAccessAlert: true)
        try await settings.setAccess(SetAccessRequest(app: "curator", readWrite: .full))
        let curator = try await harness.library(for: "curator")
        let family = try await curator.createAlbum(title: "Family")
        let trips = try await curator.createAlbum(title: "Trips")
        try await curator.add([harbour.identifier], toAlbum: family.identifier)
        let frame = try await harness.library(for: "frame")
        // Watches replay from a token, so nothing is missed while they start.
        let accessWatch = EventCollector(frame.changes(since: try await frame.changes(after: 0).token))
        defer { accessWatch.task.cancel() }
        let granted = try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, selection: [sunset.identifier],
                                                                    albums: [family.identifier]))
        #expect(granted.access.selectionCount == 1 && granted.access.albums == [family.identifier])
        let grant = try await accessWatch.wait { $0.contains { $0.addedAlbums != nil } }
        #expect(grant.compactMap(\.addedAlbums) == [[family.identifier]])
        #expect(try await settings.accessDetail(of: "frame").selection == [sunset.identifier])

        #expect(Set(try await frame.fetchAssets(withLocalIdentifiers: everything).map(\.identifier)) == [harbour.identifier, sunset.identifier])
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).total == 2)
        // Albums themselves stay the full-access apps' business.
        #expect(await errorCode { try await frame.albums() } == .notAuthorized)

        let start = try await frame.libraryChanges(after: 0).token
        let watch = Collector(frame.libraryChanges(since: start))
        defer { watch.task.cancel() }

        // Added to the album afterwards: the frame sees it, and its watcher is told.
        try await curator.add([portrait.identifier], toAlbum: family.identifier)
        #expect(try await watch.wait { $0.flatMap(\.inserted).contains(portrait.identifier) }.flatMap(\.inserted) == [portrait.identifier])
        #expect(try await frame.fetchAssets(withLocalIdentifiers: [portrait.identifier]).map(\.identifier) == [portrait.identifier])
        // Taken out of it: gone, and told.
        try await curator.remove([harbour.identifier], fromAlbum: family.identifier)
        #expect(try await watch.wait { !$0.flatMap(\.removed).isEmpty }.flatMap(\.removed) == [harbour.identifier])
        #expect(try await frame.fetchAssets(withLocalIdentifiers: [harbour.identifier]).isEmpty)
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).total == 2)

        // The photo chosen on its own: joining or leaving the album changes nothing for the frame,
        // and it is seen once.
        try await curator.add([sunset.identifier], toAlbum: family.identifier)
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).assets.map(\.identifier).sorted()
            == [portrait.identifier, sunset.identifier].sorted())
        try await curator.remove([sunset.identifier], fromAlbum: family.identifier)
        #expect(try await frame.fetchAssets(withLocalIdentifiers: [sunset.identifier]).count == 1)
        // An album the frame does not follow is none of its business.
        try await curator.add([harbour.identifier], toAlbum: trips.identifier)

        // Deleted from the library while in the album: removed, once.
        try await curator.add([harbour.identifier], toAlbum: family.identifier)
        _ = try await watch.wait { $0.flatMap(\.inserted).count == 2 }
        #expect(try await owner.delete([harbour.identifier]) == [harbour.identifier])
        let seen = try await watch.wait { $0.flatMap(\.removed).count == 2 }
        #expect(seen.flatMap(\.inserted) == [portrait.identifier, harbour.identifier])
        #expect(seen.flatMap(\.removed) == [harbour.identifier, harbour.identifier])
        #expect(seen.allSatisfy { $0.changed.isEmpty && $0.albums.isEmpty })
        // Asked after the fact, the changes are the same ones the watcher had (LibraryView decides both).
        #expect(try await frame.libraryChanges(after: start).changes.map(\.token) == seen.map(\.token))

        // The limited-library picker preselects the album and can add another.
        async let edited = frame.presentLimitedLibraryPickerWithAlbums(timeout: .seconds(30))
        let prompt = try await harness.openPrompt(settings, app: "frame", kind: .limitedLibrary)
        #expect(prompt.albums == [family.identifier] && prompt.selection == [sunset.identifier])
        try await settings.answer(prompt.prompt, .done, albums: [family.identifier, trips.identifier])
        let result = try await edited
        #expect(result.added.isEmpty && result.addedAlbums == [trips.identifier])
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).total == 2)

        // The album taken out of the selection: its photos go, the one chosen on its own stays.
        try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, albums: []))
        let removedAlbums = try await accessWatch.wait { $0.contains { $0.removedAlbums != nil } }.compactMap(\.removedAlbums)
        #expect(Set(removedAlbums.joined()) == [family.identifier, trips.identifier])
        #expect(try await frame.fetchAssets(withLocalIdentifiers: everything).map(\.identifier) == [sunset.identifier])
        #expect(try await settings.apps().first { $0.app == "frame" }?.albums == nil)

        // Leaving limited access drops the albums with the assets; a limited grant starts afresh.
        try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, albums: [family.identifier]))
        try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .full))
        try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited))
        #expect(try await settings.accessDetail(of: "frame").access.albums == nil)
        #expect(try await frame.fetchAssets(withLocalIdentifiers: everything).isEmpty)

        // One more album than a selection may follow (1,000) is refused with a sentence.
        let tooMany = (0...1_000).map { "album-\($0)" }
        #expect(await errorCode { try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, albums: tooMany)) }
            == .badRequest)
    }

    /// The owner adds a followed album to a limited selection: its watcher is told of the album's
    /// members as insertions (those it saw already aside) before the owner's change is acknowledged,
    /// and of their removal when the album is taken out again; asked after the fact, the same.
    @Test func followingAnAlbumAndStoppingReachTheAppsWatcher() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let settings = try await harness.settings()
        let harbour = try await harness.asset(named: "harbour.jpg"), portrait = try await harness.asset(named: "portrait.jpg")
        let sunset = try await harness.asset(named: "sunset.png")
        _ = try await harness.registerApp("curator")
        _ = try await harness.registerApp("frame", preventAutomaticLimitedAccessAlert: true)
        _ = try await settings.setAccess(SetAccessRequest(app: "curator", readWrite: .full))
        let curator = try await harness.library(for: "curator")
        let family = try await curator.createAlbum(title: "Family")
        try await curator.add([harbour.identifier, portrait.identifier, sunset.identifier], toAlbum: family.identifier)
        _ = try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, selection: [sunset.identifier]))
        let frame = try await harness.library(for: "frame")
        let start = try await frame.libraryChanges(after: 0).token
        let watch = Collector(frame.libraryChanges(since: start))
        defer { watch.task.cancel() }
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).total == 1)

        // Followed: harbour and portrait join what the frame sees; sunset it saw already.
        _ = try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, selection: [sunset.identifier],
                                                          albums: [family.identifier]))
        // In the log once the owner is answered; the watcher is told as the log is delivered.
        #expect(Set(try await frame.libraryChanges(after: start).changes.flatMap(\.inserted)) == [harbour.identifier, portrait.identifier])
        let joined = try await watch.wait { !$0.flatMap(\.inserted).isEmpty }
        #expect(Set(joined.flatMap(\.inserted)) == [harbour.identifier, portrait.identifier])
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).total == 3)

        // No longer followed: removed, sunset stays.
        _ = try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .limited, selection: [sunset.identifier], albums: []))
        let left = try await watch.wait { !$0.flatMap(\.removed).isEmpty }
        #expect(Set(left.flatMap(\.removed)) == [harbour.identifier, portrait.identifier])
        #expect(try await frame.fetchAssets(AssetQuery(limit: 10)).assets.map(\.identifier) == [sunset.identifier])
        // Asked after the fact, the frame hears what its watcher heard; the curator, with full access, none of it.
        #expect(try await curator.libraryChanges(after: start).changes.allSatisfy { $0.inserted.isEmpty && $0.removed.isEmpty })
        // Replayed now, the follow is read against the selection as it is: only the removal remains.
        let replayed = try await frame.libraryChanges(after: start).changes
        #expect(Set(replayed.flatMap(\.removed)) == [harbour.identifier, portrait.identifier] && replayed.flatMap(\.inserted).isEmpty)
    }

    @Test(.enabled(if: !TestDatabase.isPostgres, "adds its rows to catalog.sqlite directly (a SQLite test seam)"))
    func anAlbumOfAHundredThousandPagesThroughTheJoin() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let members = 100_000
        let sunset = try await harness.asset(named: "sunset.png")
        let harbour = try await harness.asset(named: "harbour.jpg")
        // The test seam: the picker stopped, its catalog gains rows copied from an imported photo,
        // each its own asset (identifier, content hash, name, time), as `bench browse` makes a
        // library of a million without decoding a million files. Membership then goes through the
        // real path (`library.albums.add`).
        let copies = try await harness.restartPicker(changingCatalog: { catalog in
            try CatalogCopies.add(members, of: "harbour.jpg", to: catalog)
        })
        #expect(copies.count == members)
        let owner = try await harness.owner()
        let settings = try await harness.settings(timeout: .seconds(60))

        _ = try await harness.registerApp("archivist")
        _ = try await harness.registerApp("kiosk", preventAutomaticLimitedAccessAlert: true)
        try await settings.setAccess(SetAccessRequest(app: "archivist", readWrite: .full))
        let archivist = try await harness.library(for: "archivist", timeout: .seconds(60))
        let everyone = try await archivist.createAlbum(title: "Everyone")
        let clock = ContinuousClock()
        let adding = clock.now
        for start in stride(from: 0, to: members, by: 1_000) {
            try await archivist.add(Array(copies[start..<min(start + 1_000, members)]), toAlbum: everyone.identifier)
        }
        // Reported for a person reading the log, never checked: the machine's load decides them.
        print("album grant: \(members) members added in 100 calls in \(adding.duration(to: clock.now))")
        #expect(try await owner.outline().albums.first { $0.identifier == everyone.identifier }?.assetCount == members)

        // The kiosk's grant is one album and one photo: auth holds two identifiers, not 100,001.
        try await settings.setAccess(SetAccessRequest(app: "kiosk", readWrite: .limited, selection: [sunset.identifier],
                                                      albums: [everyone.identifier]))
        let detail = try await settings.accessDetail(of: "kiosk")
        #expect(detail.selection == [sunset.identifier] && detail.access.albums == [everyone.identifier])

        let kiosk = try await harness.library(for: "kiosk", timeout: .seconds(60))
        var seen = Set<String>()
        var pages = 0
        var after: String?
        let paging = clock.now
        repeat {
            let page = try await kiosk.fetchAssets(AssetQuery(limit: 1_000, after: after))
            #expect(page.total == members + 1)
            seen.formUnion(page.assets.map(\.identifier))
            pages += 1
            after = page.next
        } while after != nil && pages <= 200
        print("album grant: \(seen.count) assets in \(pages) pages of 1000 in \(paging.duration(to: clock.now))")
        #expect(pages == 101)
        #expect(seen.count == members + 1 && seen.contains(sunset.identifier) && seen.isSuperset(of: copies))
        // Oldest first too, and fetched by identifier: the album's members, not the rest of the library.
        let oldest = try await kiosk.fetchAssets(AssetQuery(sort: .oldestFirst, limit: 5))
        #expect(oldest.assets.count == 5 && oldest.next != nil)
        #expect(Set(try await kiosk.fetchAssets(withLocalIdentifiers: [copies[0], copies[members - 1], harbour.identifier]).map(\.identifier))
            == [copies[0], copies[members - 1]])

        // One member taken out is gone at once, from a page and from a fetch.
        try await archivist.remove([copies[0]], fromAlbum: everyone.identifier)
        #expect(try await kiosk.fetchAssets(withLocalIdentifiers: [copies[0]]).isEmpty)
        #expect(try await kiosk.fetchAssets(AssetQuery(limit: 1)).total == members)
    }
}

/// Copies of one imported asset's catalog row, each its own asset, written straight into a stopped
/// picker's catalog (a test seam: what an import writes, without decoding each file).
enum CatalogCopies {
    /// Adds `count` copies of the asset named `fileName`; returns their identifiers, newest first.
    static func add(_ count: Int, of fileName: String, to catalog: URL) throws -> [String] {
        let database = try DatabaseQueue(path: catalog.path)
        return try database.write { db in
            guard let source = try Row.fetchOne(db, sql: "SELECT * FROM asset WHERE fileName = ?", arguments: [fileName]) else {
                throw LightboxError(.notFound, "No \(fileName) in the catalog to copy.")
            }
            let columns = Array(source.columnNames)
            let insert = try db.makeStatement(sql: """
                INSERT INTO asset (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
                """)
            var identifiers: [String] = []
            let newest = Date(timeIntervalSince1970: 1_700_000_000)
            for index in 0..<count {
                let identifier = String(format: "%08X-0000-4000-8000-%012X/L0/001", index, index)
                var values: [(any DatabaseValueConvertible)?] = columns.map { source[$0] as DatabaseValue }
                values[columns.firstIndex(of: "identifier")!] = identifier
                values[columns.firstIndex(of: "contentHash")!] = String(format: "copy%060d", index)
                values[columns.firstIndex(of: "fileName")!] = "copy-\(index).jpg"
                values[columns.firstIndex(of: "creationDate")!] = newest.addingTimeInterval(-Double(index))
                try insert.execute(arguments: StatementArguments(values))
                identifiers.append(identifier)
            }
            return identifiers
        }
    }
}

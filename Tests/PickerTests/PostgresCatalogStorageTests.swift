import Foundation
import LightboxPostgres
import LightboxProtocol
import Logging
import PostgresNIO
import TestServers
import Testing
@testable import Picker

/// The catalog on a real PostgreSQL server (`initdb` in a temporary folder, started for the suite):
/// keyset pages in both orders, the limited-selection join, tokens, albums, edits, the change log in
/// token order, the owner's search and the plan it runs with (the trigram index for a rare file name).
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
final class PostgresCatalogStorageTests: Sendable {
    let server: PostgresServer
    let logger = { var logger = Logger(label: "test.postgres"); logger.logLevel = .error; return logger }()

    init() async throws {
        server = try await PostgresServer.start()
    }

    deinit {
        server.stop()
    }

    /// Runs `body` with the catalog in a new database, its schema made.
    func withCatalog<Result: Sendable>(_ body: (PostgresCatalogStorage) async throws -> Result) async throws -> Result {
        let location = try PostgresLocation(url: server.url(database: server.createDatabase()))
        let storage = PostgresCatalogStorage(postgres: PostgresStorage(location: location, timeLimit: .seconds(300), logger: logger), logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await storage.run() }
            defer { group.cancelAll() }
            try await storage.prepare()
            return try await body(storage)
        }
    }

    /// Every asset a query finds, `limit` at a time, following the cursors.
    /// `count` assets `bulk-1`… made by the server (the test seam `bench` uses in SQLite, here in
    /// SQL), then analyzed, so the planner weighs them.
    func addBulkRows(_ count: Int, to storage: PostgresCatalogStorage) async throws {
        try await storage.postgres.withConnection("add rows") { connection in
            try await connection.query("""
                INSERT INTO asset (identifier, contentHash, fileName, storedPath, type, mediaType, fileSize, creationDate, importedAt)
                SELECT 'bulk-' || n, 'bulkhash' || n, 'DSC_' || n || '.jpg', 'bb/' || n, 'public.jpeg', 'image', 1,
                       TIMESTAMPTZ '2020-01-01' + n * INTERVAL '1 minute', now()
                FROM generate_series(1, \(count)) AS n
                """, logger: self.logger)
            try await connection.query("ANALYZE asset", logger: self.logger)
        }
    }

    static func walk(_ storage: some CatalogStorage, limit: Int = 7, browse: OwnerBrowse = OwnerBrowse()) async throws -> [String] {
        var found: [String] = []
        var cursor: LibraryCursor?
        repeat {
            let page = try await storage.page(filter: nil, browse: browse, limit: limit, after: cursor)
            #expect(page.assets.count <= limit)
            found += page.assets.map(\.identifier)
            cursor = page.next
        } while cursor != nil
        return found
    }

    /// Whether two records hold the same values, column by column (as they encode).
    static func same(_ first: AssetRecord?, _ second: AssetRecord) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try first.map { try encoder.encode($0) } == encoder.encode(second)
    }

    /// `count` assets, some sharing a creation date (the identifier orders them then).
    static func library(_ count: Int) -> [AssetRecord] {
        OwnerBrowseTests.library(count).enumerated().map { index, record in
            var record = record
            if index % 4 == 1 { record.creationDate = OwnerBrowseTests.library(count)[index - 1].creationDate }
            return record
        }
    }

    @Test func theSchemaIsMadeOnceAndPagesWalkTheLibraryInBothOrders() async throws {
        try await withCatalog { storage in
            // A second start finds nothing to migrate.
            #expect(try await PostgresCatalogSchema.migrator.migrate(storage.postgres).isEmpty)
            let records = Self.library(60)
            #expect(try await storage.insert(records) == Set(records.map(\.identifier)))
            // Inserting again changes nothing and records no change.
            #expect(try await storage.insert(records).isEmpty)
            let newestFirst = records.sorted(by: AssetRecord.precedesInLibrary).map(\.identifier)
            #expect(try await Self.walk(storage) == newestFirst)
            #expect(try await storage.allAssets().map(\.identifier) == newestFirst)
            // An app's query, oldest first, by cursor; the total counted once.
            var found: [String] = []
            var after: String?
            repeat {
                let cursor = try after.map { text throws(LightboxError) in try LibraryCursor(decoding: text) }
                let page = try await storage.assets(matching: AssetQuery(sort: .oldestFirst, limit: 9, after: after), inSelectionOf: nil, after: cursor)
                #expect(page.total == 60)
                found += page.page.map(\.identifier)
                after = page.next?.encoded
            } while after != nil
            #expect(found == newestFirst.reversed())
            // What was read is what was written.
            let stored = try await storage.assets([records[5].identifier, records[6].identifier])
            #expect(try Self.same(stored[records[5].identifier], records[5]))
            #expect(try await storage.asset("missing") == nil)
            #expect(try storage.containsAsset(records[7].identifier))
            // Each insertion is one change, in order.
            let changes = try await storage.changes(after: 0, limit: 1000)
            #expect(changes.map(\.asset) == records.map(\.identifier))
            #expect(changes.map(\.token) == changes.map(\.token).sorted())
            #expect(try await storage.latestChangeToken() == changes.last?.token)
        }
    }

    @Test func aLimitedAppPagesThroughItsSelectionAndTheAlbumsItFollows() async throws {
        try await withCatalog { storage in
            let records = Self.library(40)
            _ = try await storage.insert(records)
            let chosen = records.enumerated().filter { $0.offset % 5 == 0 }.map(\.element.identifier)
            let album = Album(identifier: "album-1", title: "Trip", createdAt: Date())
            try await storage.insert(album)
            let inAlbum = records.enumerated().filter { $0.offset % 7 == 0 }.map(\.element.identifier)
            #expect(try await storage.setMembership(of: inAlbum, in: album.identifier, isAdding: true) == inAlbum.count)
            #expect(try await storage.albums().map(\.assetCount) == [inAlbum.count])
            let selections = storage.selections
            #expect(try await selections.replace(app: "frame", with: chosen, albums: [album.identifier], version: 2))
            // An older answer arriving late changes nothing.
            #expect(try await !selections.replace(app: "frame", with: [], albums: [], version: 1))
            let visible = Set(chosen + inAlbum)
            let expected = records.sorted(by: AssetRecord.precedesInLibrary).map(\.identifier).filter(visible.contains)
            var found: [String] = []
            var cursor: LibraryCursor?
            repeat {
                let page = try await storage.assets(matching: AssetQuery(limit: 4), inSelectionOf: "frame", after: cursor)
                #expect(page.total == visible.count)
                found += page.page.map(\.identifier)
                cursor = page.next
            } while cursor != nil
            #expect(found == expected)
            #expect(try await selections.members(of: "frame", among: records.map(\.identifier)) == visible)
            let membership = try await selections.membership(of: "frame", among: [inAlbum[1], chosen[1]])
            #expect(membership.followed == [album.identifier])
            #expect(membership.sees(inAlbum[1]) && membership.sees(chosen[1]))
            // The album's page, and a removal taking its memberships with it.
            #expect(try await storage.albumPage(album.identifier, limit: 100, after: nil).assets.count == inAlbum.count)
            let removed = try await storage.remove([inAlbum[1]])
            #expect(removed.removed.map(\.identifier) == [inAlbum[1]])
            let kinds = try await storage.changes(after: 0, limit: 1000).suffix(2).map(\.kind)
            #expect(kinds == ["removedFromAlbum", "removed"])
            #expect(try await !selections.members(of: "frame", among: [inAlbum[1]]).contains(inAlbum[1]))
        }
    }

    @Test func tokensAreReadWithTheirAssetAndRevoked() async throws {
        try await withCatalog { storage in
            let record = Self.library(1)[0]
            _ = try await storage.insert([record])
            let tokens = ProviderTokenStore(storage: storage.providerTokens, lifetime: .seconds(60))
            let grant = try await tokens.issue(app: "frame", asset: record.identifier, pick: "pick-1")
            let (capability, asset) = try await tokens.capabilityAndAsset(of: grant.token, by: "frame", for: .load)
            #expect(try capability.asset == record.identifier && Self.same(asset, record))
            // Another app's attempt reads like a made-up token.
            await #expect(throws: LightboxError.self) { try await tokens.capability(of: grant.token, by: "other", for: .load) }
            // Expired, then revoked.
            await #expect(throws: LightboxError.self) {
                try await tokens.capability(of: grant.token, by: "frame", for: .load, now: grant.expiresAt.addingTimeInterval(1))
            }
            #expect(try await tokens.revoke(token: grant.token) == 1)
            #expect(try await tokens.revoke(token: grant.token) == 0)
            let second = try await tokens.issue(app: "frame", asset: record.identifier, pick: "pick-2")
            #expect(try await tokens.revokeAll(of: "frame") == 1)
            do {
                _ = try await tokens.capability(of: second.token, by: "frame", for: .load)
                Issue.record("a revoked token was honoured")
            } catch let error as LightboxError {
                #expect(error.code == .tokenRevoked)
            }
        }
    }

    @Test func editsReplaceTheCurrentVersionAndRevert() async throws {
        try await withCatalog { storage in
            var record = Self.library(1)[0]
            // A stored file's name begins with its content's hash, as the sweep reads it.
            record.storedPath = "ha/\(record.contentHash).jpg"
            _ = try await storage.insert([record])
            let edit = AssetEdit(asset: record.identifier, contentHash: "edited", storedPath: "ed/edited.jpg", type: .jpeg, pixelWidth: 4,
                                 pixelHeight: 4, duration: nil, fileSize: 10, properties: "{}", app: "darkroom", appName: "Darkroom",
                                 adjustment: AdjustmentData(format: "com.example.darkroom", version: "1.0", data: Data([1, 2, 3])),
                                 editedAt: Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await storage.save(edit)?.replaced == nil)
            #expect(try await storage.edit(of: record.identifier) == edit)
            #expect(try await storage.save(edit)?.replaced == edit)
            #expect(try await storage.storedFileUses(of: [record.storedPath, edit.storedPath, "ff/ffff.jpg"]).local
                    == [record.storedPath, edit.storedPath])
            #expect(try await storage.revert(record.identifier)?.edit == edit)
            #expect(try await storage.revert(record.identifier) == nil)
            #expect(try await storage.storedFileUses(of: [record.storedPath, edit.storedPath]).local == [record.storedPath])
            #expect(try await storage.changes(after: 0, limit: 10).map(\.kind) == ["inserted", "changed", "changed", "changed"])
        }
    }

    @Test func aRareFileNameIsFoundThroughItsTrigramIndex() async throws {
        try await withCatalog { storage in
            let records = Self.library(300)
            _ = try await storage.insert(records)
            // Many more rows, so the planner weighs a rare name's trigrams against walking the library.
            try await addBulkRows(50000, to: storage)
            let search = OwnerBrowse(search: LibrarySearch(parsing: "img_0017", timeZone: OwnerBrowseTests.utc))
            #expect(try await Self.walk(storage, browse: search) == [records[17].identifier])
            #expect(try await Self.walk(storage, browse: OwnerBrowse(search: LibrarySearch(parsing: "lisbon img_001", timeZone: OwnerBrowseTests.utc)))
                    == records.sorted(by: AssetRecord.precedesInLibrary).filter { $0.city == "Lisbon" && $0.fileName.contains("IMG_001") }
                        .map(\.identifier))
            var statement = PostgresStatement()
            let conditions = [statement.fileNameContains("img_0017")]
            try PostgresCatalogStorage.pageStatement(&statement, conditions: conditions, order: .newestFirst, limit: 60, after: nil)
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + statement.text, binds: statement.binds)
            let plan = try await storage.postgres.withConnection("explain") { connection in
                var lines: [String] = []
                for try await line in try await connection.query(explain, logger: self.logger).decode(String.self) {
                    lines.append(line)
                }
                return lines.joined(separator: "\n")
            }
            #expect(plan.contains("asset_filename_trigrams"), "\(plan)")
        }
    }

    /// A limited app's page walks the library probing the selection when the selection is most of
    /// the library, and hashes the selection when it is small; both find the same assets.
    @Test func aLimitedPageProbesALargeSelectionAndHashesASmallOne() async throws {
        #expect(SelectionLookup(limit: 100, matching: 100_000, library: 100_000) == .probed)
        #expect(SelectionLookup(limit: 100, matching: 50, library: 100_000) == .hashed)
        #expect(SelectionLookup(limit: 100, matching: 0, library: 0) == .hashed)
        try await withCatalog { storage in
            try await addBulkRows(20000, to: storage)
            let all = (1...20000).map { "bulk-\($0)" }
            #expect(try await storage.selections.replace(app: "wide", with: all, albums: [], version: 1))
            #expect(try await storage.selections.replace(app: "narrow", with: all.filter { $0.hasSuffix("7") }.prefix(30).map { $0 }, albums: [],
                                                         version: 1))
            for (app, chosen) in [("wide", SelectionLookup.probed), ("narrow", .hashed)] {
                let counted = try await storage.assets(matching: AssetQuery(limit: 50), inSelectionOf: app, after: nil)
                #expect(SelectionLookup(limit: 50, matching: counted.total, library: 20000) == chosen)
                var pages: [SelectionLookup: [String]] = [:]
                for lookup in [SelectionLookup.probed, .hashed] {
                    var statement = PostgresStatement()
                    let conditions = [statement.inSelection(of: app, by: lookup)]
                    try PostgresCatalogStorage.pageStatement(&statement, conditions: conditions, order: .newestFirst, limit: 50, after: nil)
                    let built = statement
                    let (plan, page) = try await storage.postgres.withConnection("explain and read") { connection in
                        var lines: [String] = []
                        for try await line in try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + built.text, binds: built.binds),
                                                                         logger: self.logger).decode(String.self) {
                            lines.append(line)
                        }
                        var identifiers: [String] = []
                        for try await row in try await connection.query(built.query, logger: self.logger) {
                            identifiers.append(try AssetSummary.postgres(row).summary.identifier)
                        }
                        return (lines.joined(separator: "\n"), identifiers)
                    }
                    #expect(plan.contains("hashed SubPlan") == (lookup == .hashed), "\(app) \(lookup): \(plan)")
                    pages[lookup] = page
                }
                #expect(pages[.probed] == pages[.hashed])
                // The statement reads one row more than the page, to tell whether another follows.
                #expect(pages[.probed].map { Array($0.prefix(50)) } == counted.page.map(\.identifier))
                #expect(pages[.probed]?.count == min(51, counted.total))
            }
        }
    }

    @Test func changeTokensCommitInOrderUnderConcurrentWriters() async throws {
        try await withCatalog { storage in
            let records = Self.library(80)
            // Writers at once, each a transaction of several rows: a reader never sees a later token
            // before an earlier one (the advisory lock), so the tokens it reads step by one.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for start in stride(from: 0, to: records.count, by: 8) {
                    group.addTask { _ = try await storage.insert(Array(records[start..<start + 8])) }
                }
                try await group.waitForAll()
            }
            let tokens = try await storage.changes(after: 0, limit: 1000).map(\.token)
            #expect(tokens.count == 80)
            #expect(zip(tokens, tokens.dropFirst()).allSatisfy { $1 == $0 + 1 })
        }
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxTransport
import Logging
import Synchronization
import Testing
@testable import Picker

final class AuditSink: Sendable {
    let entries = Mutex<[AuditEntry]>([])
}

struct PickerFixture {
    let folder: URL
    let catalog: Catalog
    /// The catalog's SQLite database, for tests that read or change its rows directly.
    let database: DatabasePool
    let tokens: ProviderTokenStore
    /// What the store reported for the audit trail, as lightbox-auth would receive it.
    let audited = AuditSink()
    /// Where imports run, as the service's render pool.
    let pool = BlockingWorkPool(threadCount: 2, maximumWaiting: 64, name: "test-import")

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Samples").standardizedFileURL

    init(tokenLifetime: Duration = .seconds(3600)) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("picker-\(UUID().uuidString)")
        let database = try CatalogDatabase.open(at: folder.appendingPathComponent("catalog.sqlite"))
        self.database = database
        catalog = Catalog(storage: SQLiteCatalogStorage(database: database), originals: folder.appendingPathComponent("originals"),
                          cloudStore: LocalCloudFolder(folder: folder.appendingPathComponent("cloud"), bandwidth: 0, pool: pool),
                          derived: folder.appendingPathComponent("derived"))
        let audited = self.audited
        tokens = ProviderTokenStore(storage: SQLiteProviderTokens(database: database), lifetime: tokenLifetime,
                                    audit: AuditReporter { entries in audited.entries.withLock { $0 += entries } })
    }

    var importer: LibraryImporter { LibraryImporter(catalog: catalog, logger: Logger(label: "test"), pool: pool) }

    func remove() {
        pool.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite struct LibraryImporterTests {
    @Test func importIsIdempotentAndIdentifiersAreStable() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let library = PickerFixture.samples.appendingPathComponent("library")
        var steps: [ImportProgress] = []
        let first = try await fixture.importer.importFolder(library) { steps.append($0) }
        #expect(first.imported.count == 7)
        #expect(first.failed.isEmpty)
        #expect(steps.map(\.completed) == Array(1...7))
        let second = try await fixture.importer.importFolder(library) { _ in }
        #expect(second.imported.isEmpty)
        #expect(Set(second.unchanged) == Set(first.imported))
        #expect(try await fixture.catalog.allAssets().count == 7)
        for identifier in first.imported {
            #expect(identifier.wholeMatch(of: /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\/L0\/001/) != nil)
        }
    }

    @Test func brokenFilesFailOneByOne() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let summary = try await fixture.importer.importFolder(PickerFixture.samples.appendingPathComponent("malformed")) { _ in }
        #expect(summary.imported.isEmpty)
        // The last two have headers that read well; their pixels do not decode.
        #expect(Set(summary.failed.map(\.file)) == ["empty.gif", "garbage.webp", "truncated.jpg", "zero-width.gif", "broken-bitstream.webp"])
        #expect(summary.failed.allSatisfy { $0.code == .badMedia && !$0.message.isEmpty })
    }

    @Test(arguments: ["relative/path", "/tmp/../etc", "/definitely/not/here"])
    func ownerPathsAreCheckedFirst(_ path: String) {
        #expect(throws: LightboxError.self) { try LibraryImporter.validatedFolder(path) }
    }

    @Test func identifiersDependOnlyOnContent() {
        let hash = SHA256Hasher.hex(Data("same bytes".utf8))
        #expect(AssetIdentifier.make(contentHash: hash) == AssetIdentifier.make(contentHash: hash))
        #expect(AssetIdentifier.make(contentHash: hash) != AssetIdentifier.make(contentHash: SHA256Hasher.hex(Data("other".utf8))))
    }
}

@Suite struct ProviderTokenStoreTests {
    func importedAsset(_ fixture: PickerFixture) async throws -> String {
        try await fixture.importer.importFile(PickerFixture.samples.appendingPathComponent("library/harbour.jpg")).identifier
    }

    func code(of operation: () async throws -> String) async -> ErrorCode? {
        do {
            _ = try await operation()
            return nil
        } catch let error as LightboxError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test func tokensWorkOnlyForTheirAppUntilRevoked() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let asset = try await importedAsset(fixture)
        let grant = try await fixture.tokens.issue(app: "demo", asset: asset, pick: "p1")
        #expect(grant.token.hasPrefix("lbt_"))
        #expect(try await fixture.tokens.redeem(grant.token, by: "demo", for: .load) == asset)
        #expect(await code { try await fixture.tokens.redeem(grant.token, by: "other", for: .load) } == .tokenUnknown)
        #expect(await code { try await fixture.tokens.redeem("lbt_made-up", by: "demo", for: .load) } == .tokenUnknown)
        #expect(try await fixture.tokens.revoke(token: grant.token) == 1)
        #expect(await code { try await fixture.tokens.redeem(grant.token, by: "demo", for: .load) } == .tokenRevoked)
    }

    /// A token's row read by position, as redeeming reads it, is the record GRDB's Codable reading gives.
    @Test func aTokenReadByPositionIsTheStoredRecord() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let asset = try await importedAsset(fixture)
        let grant = try await fixture.tokens.issue(app: "demo", asset: asset, pick: "p1")
        #expect(try await fixture.tokens.revoke(token: grant.token) == 1)
        let (codable, positional) = try await fixture.database.read { db in
            let hash = ProviderTokenStore.hash(grant.token)
            return (try TokenRecord.fetchOne(db, key: hash),
                    try TokenRecord.read(hashed: hash, in: db))
        }
        let stored = try #require(codable)
        let read = try #require(positional)
        #expect(read.tokenHash == stored.tokenHash && read.app == "demo" && read.asset == asset && read.pick == "p1")
        #expect(read.issuedAt == stored.issuedAt && read.expiresAt == stored.expiresAt && read.expiresAt > read.issuedAt)
        #expect(read.revokedAt != nil && read.revokedAt == stored.revokedAt)
        #expect(read.types == stored.types && read.strip == stored.strip)
    }

    @Test func tokensExpire() async throws {
        let fixture = try PickerFixture(tokenLifetime: .seconds(60))
        defer { fixture.remove() }
        let asset = try await importedAsset(fixture)
        let grant = try await fixture.tokens.issue(app: "demo", asset: asset, pick: "p1", now: Date().addingTimeInterval(-61))
        #expect(await code { try await fixture.tokens.redeem(grant.token, by: "demo", for: .load) } == .tokenExpired)
    }

    @Test func onlyTheHashIsStoredAndEveryRefusalIsAudited() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let asset = try await importedAsset(fixture)
        let grant = try await fixture.tokens.issue(app: "demo", asset: asset, pick: "p1")
        _ = try await fixture.tokens.redeem(grant.token, by: "demo", for: .describe)
        _ = try? await fixture.tokens.redeem(grant.token, by: "thief", for: .load)
        _ = try? await fixture.tokens.redeem("lbt_madeup", by: "thief", for: .describe)
        let stored = try await fixture.database.read { db in try TokenRecord.fetchAll(db) }
        #expect(stored.map(\.tokenHash) == [ProviderTokenStore.hash(grant.token)])
        #expect(!stored.contains { $0.tokenHash.contains(grant.token) })
        // The batch leaves after a short delay; flushing sends it now.
        fixture.tokens.audit?.flush()
        let audited = fixture.audited.entries.withLock { $0 }
        #expect(audited.map(\.outcome) == ["refused:wrongApp", "refused:tokenUnknown"])
        #expect(audited.map(\.operation) == ["load", "describe"])
        #expect(audited.map(\.app) == ["thief", "thief"])
        #expect(audited.map(\.asset) == [asset, nil])
    }

    /// A pick's tokens are stored all or none: an asset gone before its token was stored fails the
    /// whole answer and leaves no token for the others.
    @Test func aPicksTokensAreIssuedAllOrNone() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let asset = try await importedAsset(fixture)
        let requests = [ProviderTokenStore.Request(asset: asset, types: [.jpeg]), ProviderTokenStore.Request(asset: "GONE/L0/001", types: [.jpeg])]
        await #expect(throws: (any Error).self) { try await fixture.tokens.issue(app: "demo", pick: "p", requests) }
        #expect(try await fixture.database.read { try TokenRecord.fetchCount($0) } == 0)
        let grants = try await fixture.tokens.issue(app: "demo", pick: "p", [requests[0], requests[0]])
        #expect(grants.count == 2)
        #expect(try await fixture.tokens.redeem(grants[1].token, by: "demo", for: .load) == asset)
        try await fixture.tokens.discard(grants)
        #expect(try await fixture.database.read { try TokenRecord.fetchCount($0) } == 0)
    }

    @Test func revokingAnAppRevokesAllItsTokens() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let asset = try await importedAsset(fixture)
        for _ in 0..<3 { _ = try await fixture.tokens.issue(app: "demo", asset: asset, pick: "p") }
        _ = try await fixture.tokens.issue(app: "other", asset: asset, pick: "q")
        #expect(try await fixture.tokens.revokeAll(of: "demo") == 3)
        #expect(try await fixture.tokens.revokeAll(of: "demo") == 0)
    }
}

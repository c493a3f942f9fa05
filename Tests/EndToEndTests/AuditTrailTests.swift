import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// Every read an app makes reaches the owner's one audit trail (`owner.audit`), filterable by app,
/// operation and time, and paged newest first.
@Suite(.serialized) struct AuditTrailTests {
    /// The trail of one app for one operation, waiting for the picker's batch to arrive at auth.
    func entries(_ settings: OwnerSettings, app: String, operation: String, atLeast count: Int) async throws -> [AuditEntry] {
        try await settings.audit(app: app, operation: operation, atLeast: count)
    }

    @Test func everyKindOfReadIsAudited() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let start = Date()
        let app = try await harness.registerApp("viewer")
        _ = try await harness.registerApp("bystander")
        let settings = try await harness.settings()
        let owner = try await harness.owner()
        let everything = try await owner.assets()
        let harbour = try #require(everything.first { $0.fileName == "harbour.jpg" })
        let clip = try #require(everything.first { $0.fileName == "clip.mp4" })

        // A pick answered with one photo, one the owner cancels: opened twice, answered twice.
        let items = try await harness.pick(as: app) { assets in assets.filter { $0.fileName == "harbour.jpg" }.map(\.identifier) }
        async let cancelled = PhotoPicker(connection: app).pick(PickerConfiguration(), timeout: .seconds(30))
        try await owner.cancel(try await harness.pendingPick(owner).pick)
        #expect(try await cancelled.isEmpty)

        // describe, and a streamed load whose bytes the audit must report (a delivered descriptor's
        // line is FileDescriptorDeliveryTests').
        var provider = try #require(items.first).itemProvider
        provider.delivery = .stream
        _ = try await provider.describe()
        let loaded = try await provider.loadDataRepresentation()

        // Library reads count what the app got, not what it asked for.
        try await settings.setAccess(SetAccessRequest(app: "viewer", readWrite: .limited, selection: [harbour.identifier, clip.identifier]))
        let library = try await harness.library(for: "viewer")
        #expect(try await library.fetchAssets(withLocalIdentifiers: everything.map(\.identifier)).count == 2)
        #expect(try await library.fetchAssets(AssetQuery()).assets.count == 2)

        // The image manager, a movie, properties and a creation.
        let manager = ImageManager(picker: app)
        _ = try await manager.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 100, targetHeight: 100, deliveryMode: .highQualityFormat))
        let movie = harness.root.appendingPathComponent("clip.mp4")
        _ = try await manager.requestVideo(VideoRequest(asset: clip.identifier), to: movie)
        let movieBytes = try #require(try FileManager.default.attributesOfItem(atPath: movie.path)[.size] as? Int)
        _ = try await app.request(.imageProperties, AssetRequest(asset: harbour.identifier), as: ImagePropertiesResponse.self)
        try await settings.setAccess(SetAccessRequest(app: "viewer", addOnly: .allow))
        // Bytes after the JPEG's end make it a new file (not a duplicate of the library's harbour.jpg).
        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg")) + Data("audit".utf8)
        let created = try await library.createAsset(photo, fileName: "mine.jpg")

        let opened = try await entries(settings, app: "viewer", operation: "pick:opened", atLeast: 2)
        #expect(opened.count == 2)
        let answered = try await entries(settings, app: "viewer", operation: "pick:answered", atLeast: 2)
        #expect(answered.map(\.outcome) == ["cancelled", "delivered"])
        #expect(answered.map(\.assetCount) == [0, 1])
        #expect(try await entries(settings, app: "viewer", operation: "pick", atLeast: 4).count == 4)

        let described = try await entries(settings, app: "viewer", operation: "describe", atLeast: 1)
        #expect(described.map(\.outcome) == ["ok"])
        #expect(described.first?.asset == harbour.identifier)
        let loads = try await entries(settings, app: "viewer", operation: "load", atLeast: 1)
        #expect(loads.map(\.outcome) == ["completed"])
        #expect(loads.first?.bytes == Int64(loaded.count))

        let fetched = try await entries(settings, app: "viewer", operation: "fetch", atLeast: 1)
        #expect(fetched.map(\.assetCount) == [2])
        // The decision auth made for that fetch still records how many were asked for.
        let decisions = try await settings.audit(AuditRequest(app: "viewer", operation: "read")).entries
        #expect(decisions.contains { $0.assetCount == everything.count && $0.outcome == "allowed:selection" })
        #expect(try await entries(settings, app: "viewer", operation: "query", atLeast: 1).map(\.assetCount) == [2])

        let images = try await entries(settings, app: "viewer", operation: "image", atLeast: 1)
        #expect(images.first?.asset == harbour.identifier)
        let videos = try await entries(settings, app: "viewer", operation: "video", atLeast: 1)
        #expect(videos.map(\.outcome) == ["completed"])
        #expect(videos.first?.bytes == Int64(movieBytes))
        #expect(try await entries(settings, app: "viewer", operation: "properties", atLeast: 1).first?.asset == harbour.identifier)
        let creations = try await entries(settings, app: "viewer", operation: "create", atLeast: 1)
        #expect(creations.first?.asset == created)
        #expect(try await entries(settings, app: "viewer", operation: "settings", atLeast: 2).count == 2)

        // Filters: another app's trail has none of these; a time window outside them has nothing.
        let bystander = try await settings.audit(AuditRequest(app: "bystander")).entries
        #expect(!bystander.contains { ["load", "describe", "fetch", "pick:opened"].contains($0.operation) })
        #expect(try await settings.audit(AuditRequest(app: "viewer", until: start)).entries.isEmpty)
        #expect(try await settings.audit(AuditRequest(app: "viewer", since: Date().addingTimeInterval(60))).entries.isEmpty)
        let all = try await settings.audit(AuditRequest(app: "viewer", since: start, limit: 10_000))
        #expect(all.next == nil)
        #expect(all.entries.allSatisfy { $0.app == "viewer" })
        let ids = all.entries.compactMap(\.id)
        #expect(ids.count == all.entries.count)
        #expect(ids == ids.sorted(by: >), "newest first")
        // A time window around one entry finds it (wire times are whole seconds).
        let load = try #require(loads.first)
        let window = try await settings.audit(AuditRequest(app: "viewer", operation: "load", since: load.at, until: load.at.addingTimeInterval(1)))
        #expect(window.entries.map(\.id) == [load.id])

        // Paged by three: the pages together are the whole trail, in order, each entry once.
        var paged: [AuditEntry] = []
        var request = AuditRequest(app: "viewer", limit: 3)
        var pages = 0
        while true {
            let page = try await settings.audit(request)
            #expect(page.entries.count <= 3)
            paged += page.entries
            pages += 1
            guard let next = page.next else { break }
            request.before = next
        }
        #expect(paged == all.entries)
        #expect(pages == (all.entries.count + 2) / 3)
        print("audit trail of viewer: \(all.entries.count) entries in \(pages) pages of 3")

        // The CLI shows the same, filtered by operation and day.
        let day = ISO8601DateFormatter.string(from: load.at, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let cli = try await harness.cli(["user", "audit", "viewer", "--operation", "load", "--day", day])
        #expect(cli.status == 0, "\(cli.errors)")
        #expect(cli.output.contains("\tviewer\tload\t1\tcompleted\t\(loaded.count)\t\(harbour.identifier)"), "\(cli.output)")
        let firstPage = try await harness.cli(["user", "audit", "viewer", "--limit", "2"])
        #expect(firstPage.output.split(separator: "\n").count == 3)
        #expect(firstPage.output.contains("more: --before \(ids[1])"))
    }

    @Test func tokenRefusalsAreAudited() async throws {
        let harness = try await ServiceHarness.start(tokenLifetime: 20)
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let thief = try await harness.registerApp("thief")
        let settings = try await harness.settings()
        let owner = try await harness.owner()
        let items = try await harness.pick(as: app, PickerConfiguration(selectionLimit: 2)) { Array($0.prefix(2).map(\.identifier)) }
        try #require(items.count == 2)

        // Another app presenting demo's token: refused as unknown to it, audited as wrongApp.
        let stolen = ItemProvider(items[0].itemProvider.descriptor, connection: thief)
        #expect(await errorCode { try await stolen.describe() } == .tokenUnknown)
        #expect(await errorCode {
            try await ItemProvider(ItemProviderDescriptor(token: "lbt_madeup", registeredTypeIdentifiers: [.jpeg], suggestedName: nil,
                                                          expiresAt: Date()), connection: thief).loadDataRepresentation()
        } == .tokenUnknown)
        #expect(try await owner.revoke(token: items[0].itemProvider.descriptor.token) == 1)
        #expect(await errorCode { try await items[0].itemProvider.loadDataRepresentation() } == .tokenRevoked)
        try await sleep(pastExpiryOf: items[1].itemProvider)
        #expect(await errorCode { try await items[1].itemProvider.describe() } == .tokenExpired)

        let stolenUses = try await entries(settings, app: "thief", operation: "describe", atLeast: 1)
        #expect(stolenUses.map(\.outcome) == ["refused:wrongApp"])
        #expect(stolenUses.first?.asset != nil)
        // Over ipc the client loads with provider.open first: its refusals are the "open" lines.
        #expect(try await entries(settings, app: "thief", operation: "open", atLeast: 1).map(\.outcome) == ["refused:tokenUnknown"])
        #expect(try await entries(settings, app: "demo", operation: "open", atLeast: 1).map(\.outcome) == ["refused:tokenRevoked"])
        #expect(try await entries(settings, app: "demo", operation: "describe", atLeast: 1).map(\.outcome) == ["refused:tokenExpired"])
    }

    @Test func aFloodOfIdenticalCallsIsAFewLinesThatCountEveryCall() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        _ = try await harness.registerApp("busy")
        let settings = try await harness.settings()
        try await settings.setAccess(SetAccessRequest(app: "busy", readWrite: .full))
        let identifier = try #require(try await harness.owner().assets().first?.identifier)
        let library = try await harness.library(for: "busy")
        // 240 identical fetches, 48 in flight at a time (within the app's allowance).
        let calls = 240
        for _ in 0..<(calls / 48) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<48 { group.addTask { try await library.fetchAssets(withLocalIdentifiers: [identifier]).count } }
                for try await count in group { #expect(count == 1) }
            }
        }
        // Every call is counted, in far fewer lines than calls: a line per batch, not per call.
        let fetches = try await settings.audit(app: "busy", operation: "fetch", atLeast: calls)
        #expect(fetches.count == calls)
        #expect(fetches.allSatisfy { $0.outcome == "delivered" && $0.assetCount == 1 })
        let lines = try await settings.audit(AuditRequest(app: "busy", operation: "fetch")).entries
        #expect(lines.count < calls / 4, "\(lines.count) lines for \(calls) calls")
        #expect(lines.allSatisfy { ($0.times ?? 1) == 1 ? $0.lastAt == nil : $0.lastAt! >= $0.at })
        // The decisions applied, likewise.
        #expect(try await settings.audit(app: "busy", operation: "read", atLeast: calls).count == calls)
    }

    @Test func onlyServicesMayWriteTheAuditTrail() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        _ = try await harness.registerApp("forger")
        let forger = try await harness.directory.connectToAuth(as: try harness.directory.appKeyPair("forger"))
        let owner = try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair())
        let forged = AuditRecordRequest(entries: [AuditEntry(app: "someoneElse", operation: "load", assetCount: 1, outcome: "completed", at: Date())])
        for connection in [forger, owner] {
            #expect(await errorCode { try await connection.request(.recordAudit, forged, as: Empty.self) } == .notAuthorized)
        }
        #expect(try await harness.settings().audit(AuditRequest(app: "someoneElse")).entries.isEmpty)
    }
}

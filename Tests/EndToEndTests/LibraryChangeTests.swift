import Foundation
import LightboxClient
import LightboxProtocol
import Synchronization
import Testing

/// Collects a watch's changes (of the library, or of an app's access) in the background.
final class EventCollector<Change: Sendable>: Sendable {
    final class Changes: Sendable {
        let list = Mutex<[Change]>([])
    }
    let changes = Changes()
    let task: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<Change, Error>) {
        let changes = self.changes
        task = Task {
            do { for try await change in stream { changes.list.withLock { $0.append(change) } } } catch {}
        }
    }

    var all: [Change] { changes.list.withLock { $0 } }

    /// Waits (up to 10 s) until `condition` holds for what has arrived.
    func wait(until condition: ([Change]) -> Bool) async throws -> [Change] {
        for _ in 0..<200 {
            if condition(all) { return all }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the expected change never arrived; got \(all)")
        return all
    }
}

/// PHPhotoLibraryChangeObserver end to end: inserts, changes and album membership reach watching
/// apps, filtered to what each may see, and survive a reconnect through tokens.
@Suite(.serialized) struct LibraryChangeTests {
    typealias Collector = EventCollector<LibraryChange>

    @Test func watchersSeeWhatTheyMaySee() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let assets = try await owner.assets()
        let harbour = try #require(assets.first { $0.fileName == "harbour.jpg" })
        let sunset = try #require(assets.first { $0.fileName == "sunset.png" })

        _ = try await harness.registerApp("full")
        _ = try await harness.registerApp("limited", preventAutomaticLimitedAccessAlert: true)
        _ = try await harness.registerApp("denied")
        try await settings.setAccess(SetAccessRequest(app: "full", readWrite: .full))
        try await settings.setAccess(SetAccessRequest(app: "limited", readWrite: .limited, selection: [harbour.identifier]))
        try await settings.setAccess(SetAccessRequest(app: "denied", readWrite: SetAccessRequest.ReadWrite.none))
        let full = try await harness.library(for: "full")
        let limited = try await harness.library(for: "limited")
        let denied = try await harness.library(for: "denied")
        let start = try await full.libraryChanges(after: 0).token

        let fullWatch = Collector(full.libraryChanges())
        let limitedWatch = Collector(limited.libraryChanges())
        defer { fullWatch.task.cancel(); limitedWatch.task.cancel() }
        try await Task.sleep(for: .milliseconds(300))

        // An owner import is an insert; offloading and restoring are changes.
        let folder = harness.root.appendingPathComponent("new-photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ServiceHarness.extraSamples.appendingPathComponent("harbour.heic"),
                                         to: folder.appendingPathComponent("harbour.heic"))
        let imported = try #require(try await owner.importLibrary(at: folder.path).imported.first)
        try await owner.offload(sunset.identifier)
        try await owner.offload(harbour.identifier)
        try await owner.restore(harbour.identifier)

        let seen = try await fullWatch.wait { $0.flatMap(\.changed).filter { $0 == harbour.identifier }.count == 2 }
        #expect(seen.flatMap(\.inserted) == [imported])
        #expect(seen.flatMap(\.changed) == [sunset.identifier, harbour.identifier, harbour.identifier])
        let tokens = seen.map(\.token)
        #expect(tokens == tokens.sorted() && Set(tokens).count == tokens.count)

        // The limited app hears only of its selection; the denied app of nothing.
        let limitedSeen = try await limitedWatch.wait { $0.count >= 2 }
        #expect(limitedSeen.flatMap(\.changed) == [harbour.identifier, harbour.identifier])
        #expect(limitedSeen.flatMap(\.inserted).isEmpty)
        #expect(try await denied.libraryChanges(after: 0).changes.isEmpty)
        // Asked after the fact, or replayed by a watch from a token, the limited app sees the same
        // changes as it did live: its selection's, decided in one place (LibraryView).
        let limitedAsked = try await limited.libraryChanges(after: start).changes
        #expect(limitedAsked.map(\.token) == limitedSeen.map(\.token))
        #expect(limitedAsked.flatMap(\.changed) == [harbour.identifier, harbour.identifier])
        let limitedReplay = Collector(limited.libraryChanges(since: start))
        defer { limitedReplay.task.cancel() }
        #expect(try await limitedReplay.wait { $0.count >= 2 }.map(\.token) == limitedSeen.map(\.token))

        // After a reconnect: everything since a token, in order.
        let again = try await harness.library(for: "full").libraryChanges(after: start)
        #expect(again.changes.map(\.token) == tokens)
        #expect(try await full.libraryChanges(after: again.token).changes.isEmpty)
        // A watch that starts from a token replays what came after it.
        let replay = Collector(full.libraryChanges(since: start))
        defer { replay.task.cancel() }
        #expect(try await replay.wait { $0.count == tokens.count }.map(\.token) == tokens)
    }

    @Test func albumsHoldAssetsAndTheirChangesAreEvents() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let assets = try await owner.assets()
        let harbour = try #require(assets.first { $0.fileName == "harbour.jpg" })
        let portrait = try #require(assets.first { $0.fileName == "portrait.jpg" })
        _ = try await harness.registerApp("albums")
        _ = try await harness.registerApp("narrow", preventAutomaticLimitedAccessAlert: true)
        try await settings.setAccess(SetAccessRequest(app: "albums", readWrite: .full))
        try await settings.setAccess(SetAccessRequest(app: "narrow", readWrite: .limited, selection: [harbour.identifier]))
        let library = try await harness.library(for: "albums")
        let narrow = try await harness.library(for: "narrow")
        let watch = Collector(library.libraryChanges())
        let narrowWatch = Collector(narrow.libraryChanges())
        defer { watch.task.cancel(); narrowWatch.task.cancel() }
        try await Task.sleep(for: .milliseconds(300))

        let album = try await library.createAlbum(title: "Trip")
        try await library.add([harbour.identifier, portrait.identifier], toAlbum: album.identifier)
        let page = try await library.assets(inAlbum: album.identifier, limit: 1)
        #expect(page.assets.count == 1 && page.next != nil)
        let rest = try await library.assets(inAlbum: album.identifier, limit: 1, after: page.next)
        #expect(Set((page.assets + rest.assets).map(\.identifier)) == [harbour.identifier, portrait.identifier])
        try await library.remove([portrait.identifier], fromAlbum: album.identifier)
        #expect(try await library.assets(inAlbum: album.identifier).assets.map(\.identifier) == [harbour.identifier])

        let seen = try await watch.wait { $0.count >= 2 }
        #expect(seen.flatMap(\.albums) == [album.identifier, album.identifier])
        // Albums stay hidden from limited apps: no album events, no album contents, no changes.
        #expect(await errorCode { try await narrow.assets(inAlbum: album.identifier) } == .notAuthorized)
        #expect(await errorCode { try await narrow.add([harbour.identifier], toAlbum: album.identifier) } == .notAuthorized)
        #expect(await errorCode { try await library.add([harbour.identifier], toAlbum: "no-such-album") } == .notFound)
        try await Task.sleep(for: .milliseconds(300))
        #expect(narrowWatch.all.isEmpty)
    }
}

/// Deleting: the owner confirms an app's deletion (allow → gone, with its tokens; deny → kept), a
/// limited app cannot delete outside its selection, and watchers see the removal.
@Suite(.serialized) struct DeleteAssetTests {
    @Test func theOwnerConfirmsAnAppsDeletion() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let assets = try await owner.assets()
        let harbour = try #require(assets.first { $0.fileName == "harbour.jpg" })
        let portrait = try #require(assets.first { $0.fileName == "portrait.jpg" })
        let sunset = try #require(assets.first { $0.fileName == "sunset.png" })

        let app = try await harness.registerApp("cleaner")
        try await settings.setAccess(SetAccessRequest(app: "cleaner", readWrite: .full))
        let library = try await harness.library(for: "cleaner")
        // A token for the asset about to go: it must stop working with it.
        async let picked = PhotoPicker(connection: app).pick(PickerConfiguration(), timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        try await owner.choose([harbour.identifier], for: pick.pick)
        let provider = try #require(try await picked.first).itemProvider
        let watch = LibraryChangeTests.Collector(library.libraryChanges())
        defer { watch.task.cancel() }

        // Deny: nothing changes.
        async let declined = errorCode { try await library.deleteAssets([portrait.identifier]) }
        let denyPrompt = try await harness.openPrompt(settings, app: "cleaner", kind: .deleteAssets)
        #expect(denyPrompt.selection == [portrait.identifier])
        try await settings.answer(denyPrompt.prompt, .deny)
        #expect(await declined == .cancelled)
        #expect(try await owner.assets().contains { $0.identifier == portrait.identifier })

        // Allow: gone from the library, its token refused, watchers told.
        async let deleted = library.deleteAssets([harbour.identifier])
        let allowPrompt = try await harness.openPrompt(settings, app: "cleaner", kind: .deleteAssets)
        try await settings.answer(allowPrompt.prompt, .allow)
        #expect(try await deleted == [harbour.identifier])
        #expect(!(try await owner.assets().contains { $0.identifier == harbour.identifier }))
        #expect(try await library.fetchAssets(withLocalIdentifiers: [harbour.identifier]).isEmpty)
        let code = await errorCode { try await provider.describe() }
        #expect(code == .tokenUnknown || code == .notFound)
        let seen = try await watch.wait { $0.contains { $0.removed == [harbour.identifier] } }
        #expect(seen.flatMap(\.removed) == [harbour.identifier])

        // A limited app may only delete its selection; a denied one nothing; the owner at once.
        _ = try await harness.registerApp("narrowcleaner", preventAutomaticLimitedAccessAlert: true)
        try await settings.setAccess(SetAccessRequest(app: "narrowcleaner", readWrite: .limited, selection: [portrait.identifier]))
        let narrow = try await harness.library(for: "narrowcleaner")
        #expect(await errorCode { try await narrow.deleteAssets([sunset.identifier]) } == .notFound)
        _ = try await harness.registerApp("nocleaner")
        try await settings.setAccess(SetAccessRequest(app: "nocleaner", readWrite: SetAccessRequest.ReadWrite.none))
        #expect(await errorCode { try await harness.library(for: "nocleaner").deleteAssets([sunset.identifier]) } == .notAuthorized)
        #expect(try await owner.delete([sunset.identifier]) == [sunset.identifier])
        #expect(try await settings.prompts().isEmpty)
    }
}

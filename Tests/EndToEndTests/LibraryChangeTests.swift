import Foundation
import LightboxClient
import LightboxProtocol
import Synchronization
import Testing

/// PHPhotoLibraryChangeObserver end to end: inserts, changes and album membership reach watching
/// apps, filtered to what each may see, and survive a reconnect through tokens.
@Suite(.serialized) struct LibraryChangeTests {
    /// Collects a watch's changes in the background.
    final class Collector: Sendable {
        final class Changes: Sendable {
            let list = Mutex<[LibraryChange]>([])
        }
        let changes = Changes()
        let task: Task<Void, Never>

        init(_ stream: AsyncThrowingStream<LibraryChange, Error>) {
            let changes = self.changes
            task = Task {
                do { for try await change in stream { changes.list.withLock { $0.append(change) } } } catch {}
            }
        }

        var all: [LibraryChange] { changes.list.withLock { $0 } }

        /// Waits (up to 10 s) until `condition` holds for what has arrived.
        func wait(until condition: ([LibraryChange]) -> Bool) async throws -> [LibraryChange] {
            for _ in 0..<200 {
                if condition(all) { return all }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("the expected change never arrived; got \(all)")
            return all
        }
    }

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
        try await settings.setAccess(SetAccessRequest(app: "denied", readWrite: .none))
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

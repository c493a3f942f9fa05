import Foundation
import LightboxClient
import LightboxProtocol
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `lightbox-picker --watch`: files copied, edited, renamed, moved and deleted in a watched folder
/// reach apps watching the library (`library.watch`) as inserted, changed and removed assets, an
/// asset keeps its identifier across edits and moves, hostile entries do not stop the watch, and
/// a restart catches up with what changed meanwhile without reading unchanged files again.
@Suite(.serialized) struct LiveFolderTests {
    typealias Collector = LibraryChangeTests.Collector
    /// How long a change may take before the test calls it lost: far beyond the 2 s a change is
    /// promised to take, since a loaded machine (a build beside the suite) stretches every step.
    /// How long each took is printed, for the note, not judged.
    static let deadline: Duration = .seconds(60)

    /// A picker watching a new empty folder, with an app of full access watching the library.
    struct Setup {
        let harness: ServiceHarness
        let folder: URL
        let library: PhotoLibrary
        let app: DealerConnection
        let watch: Collector
    }

    func start(pickerOptions: [String] = [], prepare: (URL) throws -> Void = { _ in }) async throws -> Setup {
        let folder = URL(fileURLWithPath: "/tmp/lbw-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try prepare(folder)
        let harness = try await ServiceHarness.start(importFolders: [], pickerOptions: ["--watch", folder.path] + pickerOptions)
        let app = try await harness.registerApp("viewer")
        try await harness.settings().setAccess(SetAccessRequest(app: "viewer", readWrite: .full))
        let library = try await harness.library(for: "viewer")
        let watch = Collector(library.libraryChanges())
        try await Task.sleep(for: .milliseconds(300))
        return Setup(harness: harness, folder: folder, library: library, app: app, watch: watch)
    }

    func finish(_ setup: Setup) {
        setup.watch.task.cancel()
        setup.harness.stop()
        try? FileManager.default.removeItem(at: setup.folder)
    }

    /// Polls until `condition` holds for the changes seen, or the deadline passes.
    func changes(_ watch: Collector, within deadline: Duration = LiveFolderTests.deadline,
                 until condition: ([LibraryChange]) -> Bool) async throws -> [LibraryChange] {
        let start = ContinuousClock.now
        while ContinuousClock.now < start + deadline {
            if condition(watch.all) {
                print("live folder change reached the watcher after \(ContinuousClock.now - start)")
                return watch.all
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("the expected change did not arrive within \(deadline); got \(watch.all)")
        return watch.all
    }

    static func sample(_ name: String) -> URL { ServiceHarness.samples.appendingPathComponent(name) }

    @Test func copiesEditsMovesAndDeletionsReachWatchers() async throws {
        let setup = try await start()
        defer { finish(setup) }
        let folder = setup.folder
        let watch = setup.watch

        // Copied in: inserted.
        try FileManager.default.copyItem(at: Self.sample("harbour.jpg"), to: folder.appendingPathComponent("trip.jpg"))
        let identifier = try #require(try await changes(watch) { !$0.flatMap(\.inserted).isEmpty }.flatMap(\.inserted).first)
        let inserted = try #require(try await setup.library.fetchAssets(withLocalIdentifiers: [identifier]).first)
        #expect(inserted.fileName == "trip.jpg")

        // Edited in place: changed, same identifier, the new content.
        try Data(contentsOf: Self.sample("portrait.jpg")).write(to: folder.appendingPathComponent("trip.jpg"))
        _ = try await changes(watch) { $0.flatMap(\.changed).contains(identifier) }
        let edited = try #require(try await setup.library.fetchAssets(withLocalIdentifiers: [identifier]).first)
        #expect(edited.pixelWidth != inserted.pixelWidth || edited.pixelHeight != inserted.pixelHeight)

        // Renamed: the same asset under its new name.
        let changedBefore = watch.all.flatMap(\.changed).count
        try FileManager.default.moveItem(at: folder.appendingPathComponent("trip.jpg"), to: folder.appendingPathComponent("harbour.jpg"))
        _ = try await changes(watch) { $0.flatMap(\.changed).count > changedBefore }
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: [identifier]).first?.fileName == "harbour.jpg")

        // Moved into a new subfolder, then renamed there.
        let album = folder.appendingPathComponent("2026/summer")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        try await Task.sleep(for: .milliseconds(200))
        try FileManager.default.moveItem(at: folder.appendingPathComponent("harbour.jpg"), to: album.appendingPathComponent("harbour.jpg"))
        try await Task.sleep(for: .seconds(1))
        let changedAfterMove = watch.all.flatMap(\.changed).count
        try FileManager.default.moveItem(at: album.appendingPathComponent("harbour.jpg"), to: album.appendingPathComponent("quay.jpg"))
        _ = try await changes(watch) { $0.flatMap(\.changed).count > changedAfterMove }
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: [identifier]).first?.fileName == "quay.jpg")
        #expect(watch.all.flatMap(\.inserted) == [identifier])
        #expect(watch.all.flatMap(\.removed).isEmpty)

        // A new file in the new subfolder is followed too.
        try FileManager.default.copyItem(at: Self.sample("sunset.png"), to: album.appendingPathComponent("sunset.png"))
        _ = try await changes(watch) { $0.flatMap(\.inserted).count == 2 }

        // Deleted: removed, and a token an app held answers tokenUnknown.
        let provider = try await setup.harness.pickProvider(named: "quay.jpg", as: setup.app)
        _ = try await provider.describe()
        try FileManager.default.removeItem(at: album.appendingPathComponent("quay.jpg"))
        _ = try await changes(watch) { $0.flatMap(\.removed).contains(identifier) }
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: [identifier]).isEmpty)
        #expect(await errorCode { try await provider.describe() } == .tokenUnknown)
        #expect(watch.all.flatMap(\.removed) == [identifier])
    }

    @Test func linkLoopsFIFOsAndHalfWrittenFilesDoNotHoldTheWatchUp() async throws {
        let setup = try await start { folder in
            // Present at the first scan: a link to the folder itself, a link out of it, a FIFO.
            try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("loop").path, withDestinationPath: folder.path)
            try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("outside.jpg").path,
                                                       withDestinationPath: Self.sample("harbour.jpg").path)
            #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o600) == 0)
            try Data("not a photo".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        }
        defer { finish(setup) }
        let folder = setup.folder
        let watch = setup.watch

        // Made while watching: another FIFO, a link loop in a subfolder, a partial download.
        #expect(mkfifo(folder.appendingPathComponent("later.png").path, 0o600) == 0)
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sub.appendingPathComponent("up").path, withDestinationPath: folder.path)
        try FileManager.default.copyItem(at: Self.sample("meadow.webp"), to: folder.appendingPathComponent("meadow.webp.part"))

        // A photo written slowly, with pauses longer than the quiet period, then finished.
        let bytes = try Data(contentsOf: Self.sample("harbour.jpg"))
        let path = folder.appendingPathComponent("slow.jpg")
        _ = FileManager.default.createFile(atPath: path.path, contents: nil)
        let handle = try FileHandle(forWritingTo: path)
        let half = bytes.count / 2
        try handle.write(contentsOf: bytes.prefix(half))
        try await Task.sleep(for: .milliseconds(800))
        try handle.write(contentsOf: bytes.dropFirst(half).prefix(1000))
        try await Task.sleep(for: .milliseconds(800))
        #expect(watch.all.flatMap(\.inserted).isEmpty, "a half-written file was imported: \(watch.all)")
        try handle.write(contentsOf: bytes.dropFirst(half + 1000))
        try handle.close()
        let slow = try #require(try await changes(watch) { !$0.flatMap(\.inserted).isEmpty }.flatMap(\.inserted).first)
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: [slow]).first?.fileName == "slow.jpg")

        // The watch still follows: a partial download finished by renaming is imported once.
        try FileManager.default.moveItem(at: folder.appendingPathComponent("meadow.webp.part"), to: folder.appendingPathComponent("meadow.webp"))
        _ = try await changes(watch) { $0.flatMap(\.inserted).count == 2 }
        try await Task.sleep(for: .milliseconds(500))
        let names = try await setup.library.fetchAssets(withLocalIdentifiers: watch.all.flatMap(\.inserted)).map(\.fileName).sorted()
        #expect(names == ["meadow.webp", "slow.jpg"], "only the two photos are in the library: \(names)")
        #expect(setup.harness.picker.isRunning)
    }

    @Test func aRestartCatchesUpWithoutReadingUnchangedFiles() async throws {
        let setup = try await start(pickerOptions: ["--log-level", "info"]) { folder in
            for name in ["harbour.jpg", "portrait.jpg", "sunset.png"] {
                try FileManager.default.copyItem(at: Self.sample(name), to: folder.appendingPathComponent(name))
            }
        }
        defer { finish(setup) }
        let folder = setup.folder
        let harness = setup.harness
        let owner = try await harness.owner()
        // The first scan imports the three in the background.
        var assets: [AssetSummary] = []
        for _ in 0..<100 where assets.count < 3 {
            assets = try await owner.assets()
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(assets.count == 3)
        let byName = Dictionary(uniqueKeysWithValues: assets.map { ($0.fileName, $0.identifier) })

        // While the picker is down: one file added, one deleted, one renamed into a subfolder.
        harness.picker.terminate()
        harness.picker.waitUntilExit()
        try FileManager.default.copyItem(at: Self.sample("meadow.webp"), to: folder.appendingPathComponent("meadow.webp"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("sunset.png"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("kept"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: folder.appendingPathComponent("portrait.jpg"), to: folder.appendingPathComponent("kept/face.jpg"))
        _ = try await harness.restartPicker()

        var summary: Substring?
        for _ in 0..<100 where summary == nil {
            // The restarted picker's log (a start begins a new one).
            summary = harness.log("lightbox-picker").split(separator: "\n").first { $0.contains("caught up with the watched folders") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let line = try #require(summary, "no catch-up after the restart in:\n\(harness.log("lightbox-picker"))")
        // Only the new file was read; the moved one was recognised by inode, size and time.
        for part in ["files=3", "read=1", "moved=1", "removed=1", "unchanged=1"] {
            #expect(line.contains(part), "\(part) not in: \(line)")
        }
        let after = try await owner.assets()
        #expect(Set(after.map(\.fileName)) == ["harbour.jpg", "face.jpg", "meadow.webp"])
        #expect(after.first { $0.fileName == "face.jpg" }?.identifier == byName["portrait.jpg"])
        #expect(after.first { $0.fileName == "harbour.jpg" }?.identifier == byName["harbour.jpg"])
        #expect(!after.contains { $0.identifier == byName["sunset.png"] })
    }

    @Test func theOwnerFollowsTheWatchedImportsProgress() async throws {
        let setup = try await start()
        defer { finish(setup) }
        let owner = try await setup.harness.owner()
        let steps = LockedSteps()
        let following = Task {
            for try await step in owner.watchedImports() { steps.list.withLock { $0.append(step) } }
        }
        defer { following.cancel() }
        try await Task.sleep(for: .milliseconds(300))

        // A folder of three photos moved in arrives as one import of three.
        let outside = setup.harness.root.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        for name in ["harbour.jpg", "portrait.jpg", "sunset.png"] {
            try FileManager.default.copyItem(at: Self.sample(name), to: outside.appendingPathComponent(name))
        }
        try FileManager.default.moveItem(at: outside, to: setup.folder.appendingPathComponent("card"))
        _ = try await changes(setup.watch) { $0.flatMap(\.inserted).count == 3 }
        let end = ContinuousClock.now + Self.deadline
        while ContinuousClock.now < end, steps.list.withLock({ $0.last?.completed }) != 3 { try await Task.sleep(for: .milliseconds(25)) }
        let seen = steps.list.withLock { $0 }
        #expect(seen.first?.completed == 1 && seen.last?.completed == 3, "\(seen)")
        #expect(seen.allSatisfy { $0.total == 3 && $0.file.hasPrefix(setup.folder.path + "/card/") }, "\(seen)")
    }

    final class LockedSteps: Sendable {
        let list = Mutex<[ImportProgress]>([])
    }
}

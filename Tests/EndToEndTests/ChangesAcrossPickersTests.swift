import Foundation
import Glibc
import LightboxClient
import LightboxProtocol
import Testing
import TestServers

/// Two pickers serving one library (`SharedLibraryPickers`): a change written through either
/// reaches `library.watch` on both, once each and in token order; the owner's access changes are in
/// force at both pickers when acknowledged; a stopped picker holds the owner up only until it is cut
/// off, and serves no stale decision when it runs again; a restarted picker catches up.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled && SeaweedFSServer.isInstalled, "needs PostgreSQL and SeaweedFS (make deps)"))
struct ChangesAcrossPickersTests {
    typealias Collector = EventCollector<LibraryChange>

    @Test func changesThroughEitherPickerReachWatchersAtBoth() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let harness = pickers.harness
        let settings = try await harness.settings()
        for app in ["watcher", "saver"] {
            _ = try await harness.registerApp(app)
            try await settings.setAccess(SetAccessRequest(app: app, readWrite: .full))
        }
        let atFirst = try await harness.library(for: "watcher")
        let atSecond = try await pickers.library(for: "watcher", atSecond: true)
        let start = try await atFirst.libraryChanges(after: 0).token
        let watchAtFirst = Collector(atFirst.libraryChanges())
        let watchAtSecond = Collector(atSecond.libraryChanges())
        defer { watchAtFirst.task.cancel(); watchAtSecond.task.cancel() }
        try await Task.sleep(for: .milliseconds(300))

        // An app's save through the first picker: an insertion the second picker's watcher hears of.
        let saverAtFirst = try await harness.library(for: "saver")
        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))
        let sent = ContinuousClock.now
        let saved = try await saverAtFirst.createAsset(photo + Data("across".utf8), fileName: "across.jpg")
        let acknowledged = ContinuousClock.now - sent
        async let arrivedAtFirst = Self.arrival(of: saved, at: watchAtFirst, since: sent)
        async let arrivedAtSecond = Self.arrival(of: saved, at: watchAtSecond, since: sent)
        let arrivals = (first: try await arrivedAtFirst, second: try await arrivedAtSecond)
        print("ChangesAcrossPickers: a save sent to picker 1 was acknowledged after \(acknowledged), its event reached the watcher "
              + "on picker 1 after \(arrivals.first), on picker 2 after \(arrivals.second)")

        // An album change through the second picker, then the owner's delete through the first.
        let saverAtSecond = try await pickers.library(for: "saver", atSecond: true)
        let album = try await saverAtSecond.createAlbum(title: "Across")
        try await saverAtSecond.add([saved], toAlbum: album.identifier)
        #expect(try await harness.owner().delete([saved]) == [saved])

        let seenAtFirst = try await watchAtFirst.wait { $0.contains { $0.removed.contains(saved) } }
        let seenAtSecond = try await watchAtSecond.wait { $0.contains { $0.removed.contains(saved) } }
        let logged = try await atFirst.libraryChanges(after: start).changes
        #expect(logged.flatMap(\.inserted) == [saved])
        #expect(logged.flatMap(\.albums).allSatisfy { $0 == album.identifier } && !logged.flatMap(\.albums).isEmpty)
        #expect(logged.flatMap(\.removed) == [saved])
        // Each change once, in token order, and the same at both pickers as in the log.
        #expect(seenAtFirst.map(\.token) == logged.map(\.token))
        #expect(seenAtSecond.map(\.token) == logged.map(\.token))
        #expect(logged.map(\.token) == logged.map(\.token).sorted() && Set(logged.map(\.token)).count == logged.count)
        // Nothing arrives twice afterwards.
        try await Task.sleep(for: .milliseconds(500))
        #expect(watchAtSecond.all.count == logged.count && watchAtFirst.all.count == logged.count)

        // Changes, picks and derivative releases reach each picker on one listening connection.
        let listeners = try await pickers.psqlInPickersDatabase("""
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'
            """)
        #expect(listeners.count == 2, "listening connections of two pickers: \(listeners.count)")
    }

    /// How long after `start` the watch had the insertion of `asset` (checked every millisecond, for the report).
    static func arrival(of asset: String, at watch: Collector, since start: ContinuousClock.Instant) async throws -> Duration {
        for _ in 0..<10_000 {
            if watch.all.contains(where: { $0.inserted.contains(asset) }) { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the insertion of \(asset) never arrived; got \(watch.all)")
        return ContinuousClock.now - start
    }

    @Test func theOwnersChangeIsInForceAtBothPickersWhenAcknowledged() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let harness = pickers.harness
        let settings = try await harness.settings()
        let assets = try await harness.owner().assets()
        let harbour = try #require(assets.first { $0.fileName == "harbour.jpg" }).identifier
        let sunset = try #require(assets.first { $0.fileName == "sunset.png" }).identifier
        _ = try await harness.registerApp("reader", preventAutomaticLimitedAccessAlert: true)
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: .full))
        let atFirst = try await harness.library(for: "reader")
        let atSecond = try await pickers.library(for: "reader", atSecond: true)
        /// What the app sees of both assets through each picker.
        func seen() async throws -> (first: Set<String>, second: Set<String>) {
            (Set(try await atFirst.fetchAssets(withLocalIdentifiers: [harbour, sunset]).map(\.identifier)),
             Set(try await atSecond.fetchAssets(withLocalIdentifiers: [harbour, sunset]).map(\.identifier)))
        }
        // Both pickers hold the decision (they follow auth, so it is cached).
        #expect(try await seen() == ([harbour, sunset], [harbour, sunset]))
        #expect(try await seen() == ([harbour, sunset], [harbour, sunset]))

        // Acknowledged only once both applied it: the very next read through each sees the change.
        var asked = ContinuousClock.now
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: .limited, selection: [sunset]))
        print("ChangesAcrossPickers: a change followed by two pickers was acknowledged after \(ContinuousClock.now - asked)")
        #expect(try await seen() == ([sunset], [sunset]))
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: .limited, selection: [harbour]))
        #expect(try await seen() == ([harbour], [harbour]))

        // A stopped picker holds the owner up only until auth cuts it off.
        #expect(kill(pickers.second.process.processIdentifier, SIGSTOP) == 0)
        asked = ContinuousClock.now
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: .full))
        print("ChangesAcrossPickers: with picker 2 stopped, the change was acknowledged after \(ContinuousClock.now - asked)")
        #expect(Set(try await atFirst.fetchAssets(withLocalIdentifiers: [harbour, sunset]).map(\.identifier)) == [harbour, sunset])
        // Running again, it answers with the new decision, not its copy of the old one.
        #expect(kill(pickers.second.process.processIdentifier, SIGCONT) == 0)
        #expect(try await seen() == ([harbour, sunset], [harbour, sunset]))

        // It follows again: later changes are in force at both when acknowledged.
        try await Task.sleep(for: .seconds(1))
        #expect(try await seen() == ([harbour, sunset], [harbour, sunset]))
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: .limited, selection: [sunset]))
        #expect(try await seen() == ([sunset], [sunset]))
        try await settings.setAccess(SetAccessRequest(app: "reader", readWrite: SetAccessRequest.ReadWrite.none))
        #expect(try await seen() == ([], []))
    }

    @Test func aRestartedPickerCatchesUpOnChangesMadeAtTheOther() async throws {
        let pickers = try await SharedLibraryPickers.start()
        var second = pickers.second
        defer {
            second.stop()
            pickers.stop()
        }
        let harness = pickers.harness
        let settings = try await harness.settings()
        _ = try await harness.registerApp("watcher")
        try await settings.setAccess(SetAccessRequest(app: "watcher", readWrite: .full))
        let atFirst = try await harness.library(for: "watcher")
        let before = try await atFirst.libraryChanges(after: 0).token

        PickerFailoverTests.kill(second.process)
        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))
        let meanwhile = try await atFirst.createAsset(photo + Data("meanwhile".utf8), fileName: "meanwhile.jpg")
        second = try await SecondPicker.start(beside: harness, data: harness.root.appendingPathComponent("data2"),
                                              options: ["--cache", pickers.secondCache.path])

        // A watch from the token the app had replays what it missed, then hears what follows live.
        let atSecond = try await pickers.library(for: "watcher", atSecond: true, endpoint: second.endpoint)
        let watch = Collector(atSecond.libraryChanges(since: before))
        defer { watch.task.cancel() }
        #expect(try await watch.wait { !$0.isEmpty }.flatMap(\.inserted) == [meanwhile])
        let later = try await atFirst.createAsset(photo + Data("later".utf8), fileName: "later.jpg")
        let seen = try await watch.wait { $0.contains { $0.inserted.contains(later) } }
        #expect(seen.flatMap(\.inserted) == [meanwhile, later])
        #expect(seen.map(\.token) == (try await atFirst.libraryChanges(after: before).changes.map(\.token)))
    }
}

extension SharedLibraryPickers {
    /// `app`'s library with its picker connection to the second picker (or `endpoint`).
    func library(for app: String, atSecond: Bool, endpoint: String? = nil) async throws -> PhotoLibrary {
        var directory = harness.directory
        directory.pickerEndpoint = endpoint ?? second.endpoint
        let keyPair = try directory.appKeyPair(app)
        return PhotoLibrary(auth: try await directory.connectToAuth(as: keyPair, launch: ProcessLaunch.id),
                            picker: try await directory.connectToPicker(as: keyPair, launch: ProcessLaunch.id))
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import Synchronization
import Testing

/// Grants that end: a grant given for a while returns, when its term ends, to what the owner chose
/// (ask again, or denied), with the change told to watchers; a term that ended while lightbox-auth
/// was down ends when it is back; access an app leaves unused is reset.
@Suite(.serialized) struct GrantTermTests {
    /// Polls until `condition` holds, for up to a minute (these tests wait on real time on a
    /// machine that may be busy); records how long it took.
    /// Seconds a short term lasts from when a test makes it. A loaded machine has taken more than 2 s
    /// to set one, which was then refused as already past.
    static let shortTerm: TimeInterval = 8

    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(60) {
            if try await condition() {
                print("\(what): after \(ContinuousClock.now - start)")
                return true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("\(what): not within a minute")
        return false
    }

    @Test func aGrantWithATermEndsAndItsWatcherIsTold() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("visitor")
        let settings = try await harness.settings()
        let end = Date().addingTimeInterval(8)
        let set = try await settings.setAccess(SetAccessRequest(app: "visitor", readWrite: .full, addOnly: .allow,
                                                                term: GrantTerm(until: end, then: .deny)))
        #expect(set.access.readWrite == .authorized)
        #expect(set.access.readWriteTerm?.until.timeIntervalSince1970.rounded(.down) == end.timeIntervalSince1970.rounded(.down))
        #expect(set.access.readWriteTerm?.afterwards == .deny)
        #expect(set.access.addOnlyTerm != nil)

        let library = try await harness.library(for: "visitor")
        // While the term lasts the app reads (judged only for answers that came well before its end:
        // on a loaded machine the term may already be over).
        let status = try await library.authorizationStatus(for: .readWrite)
        let assets = try await library.fetchAssets(AssetQuery(limit: 5)).assets
        if Date() < end.addingTimeInterval(-1) {
            #expect(status == .authorized)
            #expect(!assets.isEmpty)
        }
        let seen = Mutex<[AuthorizationChange]>([])
        let watch = Task {
            do { for try await change in library.changes(since: set.token) { seen.withLock { $0.append(change) } } } catch {}
        }
        defer { watch.cancel() }

        let told = try await Self.eventually("the watcher told the grant ended") {
            seen.withLock { changes in
                changes.contains { $0.level == .readWrite && $0.status == .denied } && changes.contains { $0.level == .addOnly && $0.status == .denied }
            }
        }
        #expect(told)
        #expect(Date() >= end.addingTimeInterval(-1), "ended before its term")
        #expect(try await library.authorizationStatus(for: .readWrite) == .denied)
        #expect(try await library.authorizationStatus(for: .addOnly) == .denied)
        // The picker follows: the app sees nothing of the library now.
        #expect(try await library.fetchAssets(AssetQuery(limit: 5)).assets.isEmpty)
        let access = try #require(try await settings.apps().first { $0.app == "visitor" })
        #expect(access.readWriteTerm == nil && access.addOnlyTerm == nil)
        let trail = try await settings.audit(app: "visitor")
        #expect(trail.contains { $0.operation == AuditOperation.grantEnded(.readWrite).rawValue && $0.outcome == "denied" })
    }

    @Test func aGrantGivenAgainWithoutATermLastsUntilChanged() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("guest")
        let settings = try await harness.settings()
        let end = Date().addingTimeInterval(Self.shortTerm)
        try await settings.setAccess(SetAccessRequest(app: "guest", readWrite: .full, term: GrantTerm(until: end)))
        // The owner changes their mind: full access, until changed.
        let again = try await settings.setAccess(SetAccessRequest(app: "guest", readWrite: .full))
        #expect(again.access.readWriteTerm == nil)
        try await Task.sleep(for: .seconds(max(0, end.timeIntervalSinceNow) + 2))
        let library = try await harness.library(for: "guest")
        #expect(try await library.authorizationStatus(for: .readWrite) == .authorized)

        // A term in the past, or past a year, is refused with a sentence.
        for until in [Date().addingTimeInterval(-60), Date().addingTimeInterval(400 * 86_400)] {
            do {
                try await settings.setAccess(SetAccessRequest(app: "guest", readWrite: .limited, selection: [], term: GrantTerm(until: until)))
                Issue.record("a term ending at \(until) was accepted")
            } catch let error as LightboxError {
                #expect(error.code == .badRequest)
                #expect(error.message.contains("term") || error.message.contains("past"))
            }
        }
        #expect(try await library.authorizationStatus(for: .readWrite) == .authorized)
    }

    @Test func aGrantForAWhileReturnsToWhatTheOwnerHadChosenBefore() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("refused")
        try await harness.registerApp("new")
        let settings = try await harness.settings()
        // One app was denied, the other never asked; each is given a few seconds, with no `then`.
        try await settings.setAccess(SetAccessRequest(app: "refused", readWrite: SetAccessRequest.ReadWrite.none))
        let end = GrantTerm(until: Date().addingTimeInterval(Self.shortTerm))
        let refused = try await settings.setAccess(SetAccessRequest(app: "refused", readWrite: .full, term: end))
        let new = try await settings.setAccess(SetAccessRequest(app: "new", readWrite: .full, term: end))
        #expect(refused.access.readWriteTerm?.then == .deny)
        #expect(new.access.readWriteTerm?.then == .askAgain)
        let refusedLibrary = try await harness.library(for: "refused"), newLibrary = try await harness.library(for: "new")
        #expect(try await Self.eventually("the denied app's while ended") {
            try await refusedLibrary.authorizationStatus(for: .readWrite) == .denied
        })
        #expect(try await Self.eventually("the new app's while ended") {
            try await newLibrary.authorizationStatus(for: .readWrite) == .notDetermined
        })
    }

    @Test func aTermThatEndedWhileAuthWasDownEndsWhenItIsBack() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("sleeper")
        let settings = try await harness.settings()
        let end = Date().addingTimeInterval(Self.shortTerm)
        try await settings.setAccess(SetAccessRequest(app: "sleeper", readWrite: .full, term: GrantTerm(until: end)))
        harness.auth.terminate()
        harness.auth.waitUntilExit()
        try await Task.sleep(for: .seconds(max(0, end.timeIntervalSinceNow) + 1))
        try harness.startAuth()
        let library = try await harness.library(for: "sleeper", timeout: .seconds(30))
        let ended = try await Self.eventually("the term that ended while auth was down ended") {
            try await library.authorizationStatus(for: .readWrite) == .notDetermined
        }
        #expect(ended)
    }

    @Test func accessLeftUnusedIsResetAndTheOwnerIsToldWhy() async throws {
        // Long enough that the busy app's use reaches auth within it on a loaded machine too.
        let harness = try await ServiceHarness.start(authOptions: ["--reset-unused-after", "12s"])
        defer { harness.stop() }
        try await harness.registerApp("idle")
        try await harness.registerApp("busy")
        let settings = try await harness.settings()
        try await settings.setAccess(SetAccessRequest(app: "idle", readWrite: .full))
        try await settings.setAccess(SetAccessRequest(app: "busy", readWrite: .full))
        let busy = try await harness.library(for: "busy")
        let stop = Mutex(false)
        // The busy app uses its access all along: a fetch every 300 ms.
        let use = Task {
            while !stop.withLock({ $0 }) {
                _ = try? await busy.fetchAssets(AssetQuery(limit: 1))
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
        let reset = try await Self.eventually("the idle app's access reset") {
            try await settings.apps().first { $0.app == "idle" }?.readWrite == .notDetermined
        }
        stop.withLock { $0 = true }
        await use.value
        #expect(reset)
        let apps = try await settings.apps()
        let idle = try #require(apps.first { $0.app == "idle" })
        #expect(idle.resetAsUnusedSince != nil)
        let stillUsed = try #require(apps.first { $0.app == "busy" })
        #expect(stillUsed.readWrite == .authorized)
        #expect(stillUsed.resetAsUnusedSince == nil)
        let trail = try await settings.audit(app: "idle")
        #expect(trail.contains { $0.operation == AuditOperation.resetUnused.rawValue })

        // A new grant clears the note.
        let granted = try await settings.setAccess(SetAccessRequest(app: "idle", readWrite: .full))
        #expect(granted.access.resetAsUnusedSince == nil)
    }

    @Test func theCommandLineGivesAccessForASpan() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("cli")
        let result = try await harness.cli(["user", "access", "cli", "--read-write", "full", "--for", "1h"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("until"))
        let access = try #require(try await harness.settings().apps().first { $0.app == "cli" })
        let until = try #require(access.readWriteTerm?.until)
        #expect(abs(until.timeIntervalSinceNow - 3600) < 120)
        let refused = try await harness.cli(["user", "access", "cli", "--read-write", "full", "--for", "soon"])
        #expect(refused.status != 0)
    }
}

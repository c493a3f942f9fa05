import Foundation
import Glibc
import LightboxClient
import LightboxProtocol
import Synchronization
import Testing
import TestServers

/// Picks live in the database shared by the pickers (`SharedLibraryPickers`): the app waits on the
/// first picker while the owner, connected to the second, lists the pick and answers or cancels it.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled && SeaweedFSServer.isInstalled, "needs PostgreSQL and SeaweedFS (make deps)"))
struct PickAcrossPickersTests {
    /// The owner at the second picker sees the pick filed at the first (its long poll, already
    /// waiting, wakes for it), chooses two assets there, and the app at the first gets them: their
    /// tokens load, byte for byte the originals. The answer the second picker wrote to the shared
    /// database (kept aside by a trigger) holds neither token.
    @Test func aPickFiledAtOnePickerIsAnsweredThroughTheOther() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let answers = try await Self.keepAnswers(of: pickers)
        let app = try await pickers.harness.registerApp("across")
        let owner = OwnerSurface(picker: try await pickers.ownerAtSecond())
        #expect(try await owner.pendingPicks().isEmpty)
        // Waiting before the pick is filed; without a wake-up it would answer only when its wait ran out.
        let wait = Duration.seconds(60)
        let polled = Task { () throws -> (picks: [PendingPick], took: Duration) in
            var picks: [PendingPick] = []
            let took = try await ContinuousClock().measure { picks = try await owner.pendingPicks(waitingUpTo: wait) }
            return (picks, took)
        }
        try await Task.sleep(for: .seconds(1))
        let twoInOrder = PickerConfiguration(selectionLimit: 2, selection: .ordered, location: .precise)
        async let items = PhotoPicker(connection: app).pick(twoInOrder, timeout: .seconds(120))
        let (woken, took) = try await polled.value
        #expect(took < wait, "the long poll at the second picker waited out its whole wait: no wake-up reached it")
        let pick = try #require(woken.first)
        #expect(woken.count == 1)
        #expect(pick.app == "across")

        let offered = try await owner.assets(for: pick.pick)
        let names = ["harbour.jpg", "sunset.png"]
        let chosen = try names.map { name in try #require(offered.first { $0.fileName == name }).identifier }
        #expect(try await owner.choose(chosen, for: pick.pick, location: .precise) == 2)
        let delivered = try await items
        #expect(delivered.count == 2)
        for (item, name) in zip(delivered, names) {
            let bytes = try await item.itemProvider.loadDataRepresentation()
            #expect(bytes == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent(name))), "\(name) as loaded")
        }
        #expect(try await owner.pendingPicks().isEmpty, "an answered pick is no longer listed")
        let written = try await answers()
        #expect(written.count == 1 && written[0].contains("encapsulatedKey"), "the answer as stored: \(written)")
        for item in delivered {
            #expect(!written.joined().contains(item.itemProvider.descriptor.token), "a token the app got is readable in the stored answer")
        }
    }

    /// Keeps every answer written to the pickers' pick sessions, whoever wrote it and even once the
    /// row is gone; returns how to read them.
    static func keepAnswers(of pickers: SharedLibraryPickers) async throws -> () async throws -> [String] {
        _ = try await pickers.psqlInPickersDatabase("""
            CREATE TABLE seen_pick_answers (answer TEXT NOT NULL);
            CREATE FUNCTION keep_pick_answer() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO seen_pick_answers VALUES (NEW.answer); RETURN NEW; END $$;
            CREATE TRIGGER keep_pick_answers AFTER UPDATE OF answer ON picker_pick_sessions FOR EACH ROW EXECUTE FUNCTION keep_pick_answer();
            """)
        return { try await pickers.psqlInPickersDatabase("SELECT answer FROM seen_pick_answers") }
    }

    /// Cancelling through the second picker ends the app's wait at the first with no results.
    @Test func aPickCancelledThroughTheOtherPickerEndsWithNoResults() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let app = try await pickers.harness.registerApp("withdrawn")
        let owner = OwnerSurface(picker: try await pickers.ownerAtSecond())
        async let items = PhotoPicker(connection: app).pick(ServiceHarness.preciseLocation, timeout: .seconds(120))
        let pick = try await pickers.harness.pendingPick(owner)
        try await owner.cancel(pick.pick)
        #expect(try await items.isEmpty)
        #expect(try await owner.pendingPicks().isEmpty)
        // Cancelled once: a second cancel finds no pick.
        await #expect(throws: LightboxError.self) { try await owner.cancel(pick.pick) }
    }

    /// The owner answers one pick through both pickers at once: one answer wins, the other is told
    /// there is no pending pick (`notFound`), and the app gets the winner's results.
    @Test func aPickAnsweredThroughBothPickersAtOnceIsAnsweredOnce() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let app = try await pickers.harness.registerApp("twice")
        let first = try await pickers.harness.owner()
        let second = OwnerSurface(picker: try await pickers.ownerAtSecond())
        async let items = PhotoPicker(connection: app).pick(ServiceHarness.preciseLocation, timeout: .seconds(120))
        let pick = try await pickers.harness.pendingPick(second)
        let offered = try await second.assets(for: pick.pick)
        let harbour = try #require(offered.first { $0.fileName == "harbour.jpg" }).identifier
        let sunset = try #require(offered.first { $0.fileName == "sunset.png" }).identifier
        async let atFirst = Self.outcome { try await first.choose([harbour], for: pick.pick, location: .precise) }
        async let atSecond = Self.outcome { try await second.choose([sunset], for: pick.pick, location: .precise) }
        let outcomes = await [atFirst, atSecond]
        let won = outcomes.compactMap { try? $0.get() }
        let refused = outcomes.compactMap { outcome -> LightboxError? in
            guard case .failure(let error) = outcome else { return nil }
            return error as? LightboxError
        }
        #expect(won == [1])
        #expect(refused.map(\.code) == [.notFound])
        let delivered = try await items
        #expect(delivered.count == 1)
        let winner = (try? outcomes[0].get()) == 1 ? "harbour.jpg" : "sunset.png"
        let bytes = try await #require(delivered.first).itemProvider.loadDataRepresentation()
        #expect(bytes == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent(winner))))
    }

    /// A picker killed while its app waits: the pick stops being listed at the other picker once the
    /// killed one's lease on it ends, and cannot be answered there.
    @Test func aKilledPickersPicksAreNoLongerListed() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let app = try await pickers.harness.registerApp("orphaned")
        let owner = OwnerSurface(picker: try await pickers.ownerAtSecond())
        let filed = Task { try? await PhotoPicker(connection: app).pick(ServiceHarness.preciseLocation, timeout: .seconds(30)) }
        defer { filed.cancel() }
        let pick = try await pickers.harness.pendingPick(owner)
        let first = try #require(pickers.harness.picker)
        Glibc.kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        var listed = true
        for _ in 0..<30 where listed {
            listed = try await owner.pendingPicks(waitingUpTo: .seconds(2)).contains { $0.pick == pick.pick }
            if listed { try await Task.sleep(for: .seconds(1)) }
        }
        #expect(!listed, "the killed picker's pick is still listed")
        let offered = try await owner.assets()
        let harbour = try #require(offered.first { $0.fileName == "harbour.jpg" }).identifier
        let refused = await Self.outcome { try await owner.choose([harbour], for: pick.pick) }
        #expect((refused.failure as? LightboxError)?.code == .notFound)
    }

    static func outcome(_ body: () async throws -> Int) async -> Result<Int, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}

private extension Result {
    var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}

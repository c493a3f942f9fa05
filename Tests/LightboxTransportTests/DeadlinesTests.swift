import LightboxTransport
import Synchronization
import Testing

private final class Fired: Sendable {
    let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}

@Suite struct DeadlinesTests {
    /// Polls until `condition` holds; the limit only keeps a broken loop from hanging the suite.
    func eventually(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<2000 where !(await condition()) { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func actionsRunInTheOrderTheyAreDueAndCancelledOnesNever() async throws {
        let deadlines = Deadlines()
        let fired = Fired()
        let loop = Task { await deadlines.run() }
        defer { loop.cancel() }
        let late = await deadlines.schedule(after: .seconds(3600)) { fired.append("late") }
        await deadlines.schedule(after: .milliseconds(200)) { fired.append("second") }
        let cancelled = await deadlines.schedule(after: .milliseconds(100)) { fired.append("cancelled") }
        // Scheduled while the loop sleeps toward later deadlines: the loop wakes for it (or it
        // would wait the hour).
        await deadlines.schedule(after: .milliseconds(50)) { fired.append("first") }
        await deadlines.cancel(cancelled)
        try await eventually { fired.all.count == 2 }
        #expect(fired.all == ["first", "second"])
        #expect(await deadlines.count == 1)
        await deadlines.cancel(late)
        #expect(await deadlines.count == 0)
    }

    /// Entries go when they are cancelled: many scheduled and cancelled leave none behind.
    @Test func cancelledEntriesAreNotKept() async throws {
        let deadlines = Deadlines()
        let loop = Task { await deadlines.run() }
        defer { loop.cancel() }
        for _ in 0..<10_000 {
            let token = await deadlines.schedule(after: .seconds(600)) {}
            await deadlines.cancel(token)
        }
        #expect(await deadlines.count == 0)
    }

    /// The loop ends when its task is cancelled, even with nothing due for an hour or nothing at all.
    @Test func theLoopEndsWhenCancelled() async throws {
        for pending in [false, true] {
            let deadlines = Deadlines()
            let fired = Fired()
            if pending { await deadlines.schedule(after: .seconds(3600)) { fired.append("never") } }
            let loop = Task { await deadlines.run() }
            try await Task.sleep(for: .milliseconds(20))
            loop.cancel()
            await loop.value
            #expect(fired.all.isEmpty)
        }
    }
}

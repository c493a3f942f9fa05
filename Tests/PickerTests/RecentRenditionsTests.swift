import Foundation
import Testing
@testable import Picker

@Suite struct RecentRenditionsTests {
    func rendition(_ bytes: Int, _ fill: UInt8 = 1) -> Rendition {
        Rendition(data: Data(repeating: fill, count: bytes), type: .jpeg, width: 10, height: 10)
    }

    @Test func keptRenditionsAreServedUntilTheirDiskUseIsDueAgain() {
        let recent = RecentRenditions(maximumBytes: 1 << 20)
        let start = ContinuousClock.now
        #expect(recent.rendition("a.thumb", now: start) == nil)
        recent.keep(rendition(100, 7), for: "a.thumb", now: start)
        #expect(recent.rendition("a.thumb", now: start + .seconds(1))?.data == Data(repeating: 7, count: 100))
        #expect(recent.rendition("b.thumb", now: start) == nil)
        // Past the interval the caller reads the file again (stamping its use) and keeps it anew.
        #expect(recent.rendition("a.thumb", now: start + RecentRenditions.diskStampInterval) == nil)
        recent.keep(rendition(100, 8), for: "a.thumb", now: start + RecentRenditions.diskStampInterval)
        #expect(recent.rendition("a.thumb", now: start + RecentRenditions.diskStampInterval)?.data.first == 8)
        #expect(recent.bytes == 100 && recent.count == 1)
    }

    @Test func theLeastRecentlyUsedGoFirstAndTheBytesStayBounded() {
        let recent = RecentRenditions(maximumBytes: 10_000)
        let now = ContinuousClock.now
        for index in 0..<9 { recent.keep(rendition(1_000), for: "r\(index)", now: now) }
        // r0 used again: r1 is now the least recently used.
        #expect(recent.rendition("r0", now: now) != nil)
        recent.keep(rendition(2_000), for: "r9", now: now)
        #expect(recent.bytes <= 7_500)
        #expect(recent.rendition("r0", now: now) != nil && recent.rendition("r9", now: now) != nil)
        #expect(recent.rendition("r1", now: now) == nil && recent.rendition("r2", now: now) == nil)
        // Anything over a quarter of the budget is not kept at all.
        recent.keep(rendition(2_501), for: "big", now: now)
        #expect(recent.rendition("big", now: now) == nil)
    }
}

import Foundation
import LightboxProtocol
import Testing

@Suite struct AuditBatchTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(_ operation: String, _ second: Double, assetCount: Int = 1, outcome: String = "delivered", bytes: Int64? = nil,
               asset: String? = nil) -> AuditEntry {
        AuditEntry(app: "demo", operation: operation, assetCount: assetCount, outcome: outcome, at: start.addingTimeInterval(second),
                   bytes: bytes, asset: asset)
    }

    @Test func repeatsBecomeOneLineWithACountInTheOrderFirstSeen() {
        var batch = AuditBatch()
        batch.append(entry("fetch", 0))
        batch.append(entry("read", 0.1))
        batch.append(entry("fetch", 0.2))
        batch.append(entry("fetch", 0.3))
        batch.append(entry("read", 0.4))
        #expect(batch.entries.map(\.operation) == ["fetch", "read"])
        #expect(batch.entries.map(\.times) == [3, 2])
        #expect(batch.entries[0].at == start && batch.entries[0].lastAt == start.addingTimeInterval(0.3))
        #expect(batch.entries[1].at == start.addingTimeInterval(0.1) && batch.entries[1].lastAt == start.addingTimeInterval(0.4))
    }

    @Test func anythingBesidesTheTimeKeepsLinesApart() {
        var batch = AuditBatch()
        let base = entry("load", 0, bytes: 10, asset: "A")
        let variants = [base, entry("image", 0, bytes: 10, asset: "A"), entry("load", 0, assetCount: 2, bytes: 10, asset: "A"),
                        entry("load", 0, outcome: "failed", bytes: 10, asset: "A"), entry("load", 0, bytes: 11, asset: "A"),
                        entry("load", 0, asset: "A"), entry("load", 0, bytes: 10, asset: "B"), entry("load", 0, bytes: 10)]
        var otherApp = base
        otherApp.app = "other"
        batch.append(contentsOf: variants + [otherApp])
        #expect(batch.count == variants.count + 1)
        #expect(batch.entries.allSatisfy { $0.times == nil && $0.lastAt == nil })
    }

    @Test func collapsedLinesCollapseAgainAddingTheirCounts() {
        // The picker's batches collapse repeats, then auth's batch of several of them.
        var picker = AuditBatch()
        for second in 0..<5 { picker.append(entry("fetch", Double(second))) }
        var auth = AuditBatch()
        auth.append(contentsOf: picker.entries)
        auth.append(entry("fetch", 9))
        auth.append(contentsOf: picker.entries)
        #expect(auth.entries.map(\.times) == [11])
        #expect(auth.entries[0].at == start && auth.entries[0].lastAt == start.addingTimeInterval(9))
    }

    @Test func droppingTheOldestKeepsCountingTheRest() {
        var batch = AuditBatch()
        batch.append(contentsOf: [entry("a", 0), entry("b", 1), entry("a", 1.5), entry("c", 2)])
        // Two lines, three entries.
        #expect(batch.removeFirst(2) == 3)
        batch.append(entry("c", 3))
        batch.append(entry("a", 4))
        #expect(batch.entries.map(\.operation) == ["c", "a"])
        #expect(batch.entries.map(\.times) == [2, nil])
    }
}

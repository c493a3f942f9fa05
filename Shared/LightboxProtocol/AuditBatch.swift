import Foundation

/// Audit entries gathered for one write, with repeats collapsed: an entry identical to one already
/// in the batch (same app, operation, asset count, outcome, bytes and asset) only counts as one more
/// `times` and moves `lastAt`, as syslog says "last message repeated". An app calling the same read
/// thousands of times a second then costs the trail one line per batch, not one per call — and the
/// picker's reports and auth's inserts stay small however busy an app is.
///
/// Entries keep the order of their first occurrence.
public struct AuditBatch: Sendable {
    public private(set) var entries: [AuditEntry] = []
    /// Where each distinct entry sits in `entries`, by `repeatKey`.
    private var positions: [AuditEntry: Int] = [:]

    /// What makes two entries repeats of each other: everything but the time (and the row id).
    private static func repeatKey(_ entry: AuditEntry) -> AuditEntry {
        var key = entry
        key.id = nil
        key.at = .distantPast
        key.times = nil
        key.lastAt = nil
        return key
    }

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    /// Distinct lines, not calls.
    public var count: Int { entries.count }

    public mutating func append(_ entry: AuditEntry) {
        let key = Self.repeatKey(entry)
        guard let position = positions[key] else {
            positions[key] = entries.count
            entries.append(entry)
            return
        }
        var merged = entries[position]
        let first = min(merged.at, entry.at)
        let last = max(merged.lastAt ?? merged.at, entry.lastAt ?? entry.at)
        merged.times = (merged.times ?? 1) + (entry.times ?? 1)
        merged.at = first
        merged.lastAt = last
        entries[position] = merged
    }

    public mutating func append(contentsOf entries: some Sequence<AuditEntry>) {
        for entry in entries { append(entry) }
    }

    /// Drops the `count` oldest lines (a backlog that outgrew its bound); returns how many entries
    /// they stood for.
    @discardableResult
    public mutating func removeFirst(_ count: Int) -> Int {
        let dropped = entries.prefix(count).reduce(0) { $0 + ($1.times ?? 1) }
        entries.removeFirst(min(count, entries.count))
        positions = Dictionary(uniqueKeysWithValues: entries.enumerated().map { (Self.repeatKey($1), $0) })
        return dropped
    }
}

import Foundation
import Synchronization

/// The totals `library.query` reports, kept per query shape so a page does not count the whole
/// matching set again. An entry is valid for one state of the library (the newest change token)
/// and of the app's selection (its version); any change makes a new key, and old keys are cleared
/// when the table is full.
final class QueryCounts: Sendable {
    struct Key: Hashable, Sendable {
        var app: String?
        var mediaType: String?
        var from: Date?
        var to: Date?
        var libraryToken: Int64
        var selectionVersion: Int64?
    }

    static let capacity = 4096
    private let counts = Mutex<[Key: Int]>([:])

    /// The count for `key`, when it is known.
    func known(_ key: Key) -> Int? {
        counts.withLock { $0[key] }
    }

    func count(for key: Key, counting: () throws -> Int) rethrows -> Int {
        if let known = counts.withLock({ $0[key] }) { return known }
        let total = try counting()
        remember(total, for: key)
        return total
    }

    /// Keeps `total` as the count for `key`.
    func remember(_ total: Int, for key: Key) {
        counts.withLock { counts in
            if counts.count >= Self.capacity { counts.removeAll() }
            counts[key] = total
        }
    }
}

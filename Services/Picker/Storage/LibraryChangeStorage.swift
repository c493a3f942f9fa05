import Foundation

/// The library's change log, read in token order. Tokens are seen by readers in the order they
/// were given: no reader sees a token while an earlier one may still commit.
protocol LibraryChangeStorage: Sendable {
    func changes(after token: Int64, limit: Int) async throws -> [LibraryChangeLog.Entry]
    /// The newest token (0 for an empty log).
    func latestChangeToken() async throws -> Int64
    /// Calls `changedElsewhere` whenever another process sharing this log (a picker on another host)
    /// may have recorded changes — after each of its writes, and each time following starts again,
    /// as some may have been missed — until the task is cancelled. Returns at once where this
    /// process is the only writer.
    func followChangesElsewhere(_ changedElsewhere: @escaping @Sendable () -> Void) async
}

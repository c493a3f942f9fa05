import Foundation

/// The library's change log, read in token order. Tokens are seen by readers in the order they
/// were given: no reader sees a token while an earlier one may still commit.
protocol LibraryChangeStorage: Sendable {
    func changes(after token: Int64, limit: Int) async throws -> [LibraryChangeLog.Entry]
    /// The newest token (0 for an empty log).
    func latestChangeToken() async throws -> Int64
}

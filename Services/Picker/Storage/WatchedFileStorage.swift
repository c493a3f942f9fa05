import Foundation

/// What the picker last saw of each file in a watched folder (`--watch`), so a restart compares
/// sizes, times and inodes instead of reading every file again.
protocol WatchedFileStorage: Sendable {
    /// The rows of files below `folder`.
    func rows(below folder: String) async throws -> [WatchedFileRow]
    func rows(at paths: [String]) async throws -> [WatchedFileRow]
    /// The rows of files with these inodes (a moved file keeps its inode).
    func rows(withInodes inodes: [UInt64]) async throws -> [WatchedFileRow]
    /// Whether another watched file than `path` became `asset`.
    func isShared(_ asset: String, besides path: String) async throws -> Bool
    /// Whether any watched file became `asset`.
    func isWatched(_ asset: String) async throws -> Bool
    /// Records the rows (replacing rows of the same paths), in one transaction.
    func save(_ rows: [WatchedFileRow]) async throws
    /// Moves a row to a new path (replacing a row there), keeping its asset.
    func move(from old: String, to new: String, state: FileState) async throws
    func delete(_ paths: [String]) async throws
}

/// A watched file's path, its state when last read and the asset it became (nil: not media).
struct WatchedFileRow: Sendable {
    var path: String
    var asset: String?
    var state: FileState
}

import Foundation
import Glibc
import LightboxObjectStore

/// What a store of originals (`OriginalStore`) or the cloud tier (`CloudStore`) holds, for the sweep
/// (`StoredFileSweep`): stored paths written before a moment, a page at a time, and their removal.
protocol StoredFileListing: Sendable {
    /// Calls `page` with the stored paths written before `cutoff`, some at a time.
    func forEachStoredPage(modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws
    /// Removes the stored file at `path` (one that is not there is no error).
    func removeStored(_ path: String) async throws
}

/// The stored files of a local folder, one subfolder at a time (stored paths are `xx/…`, `xx` the
/// content hash's first two characters, so memory stays one subfolder's names): the walk of
/// `FolderListing` (symbolic links never followed, bounded), each file's modification time read with
/// `lstat`.
enum LocalStoredFiles {
    static let pageSize = 1000

    static func forEachPage(in folder: URL, modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws {
        // A folder not made yet (no original offloaded so far) holds nothing.
        guard let subfolders = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        var names: [String] = []
        for subfolder in subfolders.sorted() where !subfolder.hasPrefix(".") {
            let path = folder.appendingPathComponent(subfolder).path
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            let base = path + "/"
            for file in try FolderListing.tree(below: URL(fileURLWithPath: path, isDirectory: true)).files where file.hasPrefix(base) {
                guard lstat(file, &info) == 0, Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)) < cutoff else { continue }
                names.append(subfolder + "/" + file.dropFirst(base.count))
                if names.count == pageSize {
                    try await page(names)
                    names.removeAll(keepingCapacity: true)
                }
            }
        }
        if !names.isEmpty { try await page(names) }
    }
}

import Foundation
import Glibc

/// Makes stored originals durable before the catalog rows that name them are committed, so an
/// acknowledged import survives a crash or power loss with its files (the catalog commits with
/// `synchronous=FULL`; a row naming a file still in the page cache would outlive the file).
///
/// The importer writes a batch's files without syncing each, then syncs them once here: a few
/// files are synced one by one (each and its folders); a batch is synced with one `syncfs` of the
/// originals' file system, one journal commit instead of one per file. Blocking: call it on a
/// pool thread.
enum DurableFiles {
    /// Above this many files, one `syncfs` is cheaper than syncing each.
    static let syncEachLimit = 8

    static func sync(_ files: [URL]) throws {
        guard let first = files.first else { return }
        if files.count > syncEachLimit {
            try syncFileSystem(holding: first.deletingLastPathComponent())
            return
        }
        // A new file needs its folder's entry synced, and a new folder its parent's.
        var folders: Set<String> = []
        for file in files {
            try syncPath(file.path, flags: O_RDONLY)
            let folder = file.deletingLastPathComponent()
            folders.insert(folder.path)
            folders.insert(folder.deletingLastPathComponent().path)
        }
        for folder in folders.sorted() { try syncPath(folder, flags: O_RDONLY | O_DIRECTORY) }
    }

    private static func syncFileSystem(holding folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(folder.path) }
        defer { close(descriptor) }
        guard syncfs(descriptor) == 0 else { throw error(folder.path) }
    }

    /// glibc's `syncfs`, which Swift's Glibc module leaves out (it is declared under _GNU_SOURCE);
    /// looked up once. Where it is missing, `sync` stands in: slower, as safe.
    private static let syncfs: @convention(c) (Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return { _ in Glibc.sync(); return 0 } }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    private static func syncPath(_ path: String, flags: Int32) throws {
        let descriptor = open(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw error(path) }
    }

    private static func error(_ path: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
    }
}

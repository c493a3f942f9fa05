import Foundation
import Glibc
import NIOPosix

/// Makes stored originals durable before the catalog rows that name them are committed, so an
/// acknowledged import survives a crash or power loss with its files (the catalog commits with
/// `synchronous=FULL`; a row naming a file still in the page cache would outlive the file).
///
/// The importer writes each file without waiting for the disk and starts its writeback at once
/// (`IngestedFile.store`), so the disk writes while the cores decode. Before a batch's rows are
/// committed, each of its files is synced (its pages are on disk or on their way by then), then
/// each folder that holds them and each such folder's parent once (a new file's entry, a new
/// folder's entry): one sync per folder per batch, not per file. Only the batch's own files are
/// synced, never the whole file system, whose other writers' data a `syncfs` would wait for too.
enum DurableFiles {
    /// Syncs `files` on NIO's threads for blocking file-system calls, not on the caller's pool:
    /// waiting for the disk is not CPU work, and the render pool's threads keep decoding meanwhile.
    static func makeDurable(_ files: [URL]) async throws {
        guard !files.isEmpty else { return }
        try await NIOThreadPool.singleton.runIfActive { try sync(files) }
    }

    /// The same, blocking the calling thread.
    static func sync(_ files: [URL]) throws {
        guard !files.isEmpty else { return }
        for file in files { try syncPath(file.path, flags: O_RDONLY) }
        // A new file needs its folder's entry synced, and a new folder its parent's.
        var folders: Set<String> = []
        for file in files {
            let folder = file.deletingLastPathComponent()
            folders.insert(folder.path)
            folders.insert(folder.deletingLastPathComponent().path)
        }
        for folder in folders.sorted() { try syncPath(folder, flags: O_RDONLY | O_DIRECTORY) }
    }

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

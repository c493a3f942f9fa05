import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the picker last saw of a file in a watched folder: enough to tell, without reading it,
/// whether it is unchanged (same size, time and inode), moved (the same inode, size and time at
/// another path) or changed.
struct FileState: Hashable, Sendable {
    var size: Int64
    /// Modification time in nanoseconds since 1970.
    var modified: Int64
    var device: UInt64
    var inode: UInt64

    /// The state of a regular file at `path`, not following a link there; nil for anything else
    /// (gone, a folder, a FIFO, a socket, a device, a link).
    static func ofRegularFile(at path: String) -> FileState? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileState(size: Int64(status.st_size), modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
                         device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

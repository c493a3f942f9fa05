import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The data folder holds keys, grants and the owner's photos: only its owner may read it, whatever
/// the umask the process was started with.
public enum PrivateDataFolder {
    public static let folderMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    /// Everything this process creates from now on (folders, SQLite's -wal and -shm, keys,
    /// originals, derivatives) is private to its owner.
    public static func restrictNewFiles() {
        umask(0o077)
    }

    /// Restricts new files, creates the folder when missing, and tightens whatever an older
    /// install left readable: folders to 0700, files to 0600. Symbolic links are not followed.
    /// Returns how many modes it changed.
    @discardableResult
    public static func secure(_ folder: URL) throws -> Int {
        restrictNewFiles()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var changed = 0
        try tighten(folder.path, changed: &changed)
        return changed
    }

    private static func tighten(_ path: String, changed: inout Int) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }  // Gone meanwhile.
        let type = status.st_mode & S_IFMT
        let isFolder = type == S_IFDIR
        guard isFolder || type == S_IFREG || type == S_IFSOCK else { return }
        let wanted = isFolder ? folderMode : fileMode
        if status.st_mode & 0o7777 != wanted {
            guard chmod(path, wanted) == 0 else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path,
                    NSLocalizedDescriptionKey: "Cannot make \(path) private (chmod: \(String(cString: strerror(errno)))); it must belong to the user running Lightbox."])
            }
            changed += 1
        }
        guard isFolder else { return }
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            try tighten(path + "/" + name, changed: &changed)
        }
    }
}

import Foundation
import LightboxProtocol
import Media

#if canImport(Glibc)
import Glibc
#endif

/// The regular files below a folder, read with `readdir` alone. FileManager's enumerator asks for
/// each file's attributes, and Foundation fills those in with the owner's and group's names (a read
/// of /etc/passwd and /etc/group per file).
///
/// The walk is made for folders nobody checked: symbolic links are never followed (subfolders are
/// opened relative to their parent with `O_NOFOLLOW`, so a link swapped in meanwhile is not taken
/// either); a folder reached twice (a bind mount of a parent) is walked once, known by device and
/// inode; the kernel's own file systems (a /proc or /sys mounted inside) are not entered; hidden
/// names (a leading dot) are skipped with everything below them. Its memory is bounded (and only
/// the folders on the current path are open): past
/// `maximumFiles` files, `maximumFolders` folders or `maximumDepth` levels it stops with an error
/// that says so, rather than holding a path for every entry of an endless tree.
enum FolderListing {
    static let maximumFiles = 1_000_000
    static let maximumFolders = 200_000
    static let maximumDepth = 64

    /// Every regular file below `folder`, sorted by path.
    static func regularFiles(below folder: URL) throws(LightboxError) -> [URL] {
        try tree(below: folder).files.sorted().map { URL(fileURLWithPath: $0, isDirectory: false) }
    }

    /// The paths of the regular files below `folder`, and of the folders walked (`folder` first),
    /// in no particular order.
    static func tree(below folder: URL) throws(LightboxError) -> (files: [String], folders: [String]) {
        var walk = Walk()
        let root = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else {
            throw LightboxError(.notFound, "\(folder.path) is not a folder the picker can read (\(String(cString: strerror(errno)))).")
        }
        try walk.list(root, path: folder.path, depth: 0)
        return (walk.files, walk.folders)
    }

    /// Depth first: only the folders on the current path are open (at most `maximumDepth`).
    private struct Walk {
        var files: [String] = []
        var folders: [String] = []
        var seen: Set<FolderIdentity> = []

        struct FolderIdentity: Hashable {
            var device: UInt64
            var inode: UInt64
        }

        /// Lists the opened folder and everything below it, and closes it. A folder walked already,
        /// or on a kernel file system, is passed over.
        mutating func list(_ descriptor: Int32, path: String, depth: Int) throws(LightboxError) {
            var status = stat()
            guard fstat(descriptor, &status) == 0, KernelFileSystem.of(descriptor: descriptor) == nil,
                  seen.insert(FolderIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))).inserted,
                  let directory = fdopendir(descriptor) else {
                close(descriptor)
                return
            }
            defer { closedir(directory) }
            self.folders.append(path)
            guard depth <= FolderListing.maximumDepth else {
                throw LightboxError(.badRequest, "\(path) is more than \(FolderListing.maximumDepth) folders deep; import a folder nearer to it.")
            }
            guard seen.count <= FolderListing.maximumFolders else {
                throw LightboxError(.badRequest, "The folder holds more than \(FolderListing.maximumFolders) folders; import its subfolders one at a time.")
            }
            var folders: [String] = []
            while let entry = readdir(directory) {
                let name = FolderListing.name(of: entry)
                guard !name.hasPrefix(".") else { continue }
                switch FolderListing.kind(of: entry.pointee.d_type, named: name, in: descriptor) {
                case .file:
                    files.append(path.hasSuffix("/") ? path + name : path + "/" + name)
                    guard files.count <= FolderListing.maximumFiles else {
                        throw LightboxError(.badRequest, "The folder holds more than \(FolderListing.maximumFiles) files; import its subfolders one at a time.")
                    }
                case .folder:
                    folders.append(name)
                case .other:
                    break
                }
            }
            for name in folders {
                let sub = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else { continue }
                try list(sub, path: path.hasSuffix("/") ? path + name : path + "/" + name, depth: depth + 1)
            }
        }
    }

    /// The entry's name, read in place: glibc's records are only as long as their name (`d_reclen`),
    /// so copying `d_name` whole (256 bytes) would read past the last record of the buffer.
    private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    private enum Kind { case file, folder, other }

    /// The entry's kind from `readdir`, or from `fstatat` (not following links) on file systems that do not say.
    private static func kind(of type: UInt8, named name: String, in folder: Int32) -> Kind {
        switch Int32(type) {
        case Int32(DT_REG): return .file
        case Int32(DT_DIR): return .folder
        case Int32(DT_UNKNOWN):
            var status = stat()
            guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return .other }
            switch status.st_mode & S_IFMT {
            case S_IFREG: return .file
            case S_IFDIR: return .folder
            default: return .other
            }
        default: return .other
        }
    }
}

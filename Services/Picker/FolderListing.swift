import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The regular files below a folder, read with `readdir` alone. FileManager's enumerator asks for
/// each file's attributes, and Foundation fills those in with the owner's and group's names: it
/// opened and read /etc/passwd and /etc/group once per file (strace, at import). Symbolic links are not followed (as the enumerator does not), and hidden names (a
/// leading dot) are skipped with everything below them.
enum FolderListing {
    /// Every regular file below `folder`, sorted by path.
    static func regularFiles(below folder: URL) -> [URL] {
        var paths: [String] = []
        var folders = [folder.path]
        while let next = folders.popLast() {
            guard let directory = opendir(next) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
                guard !name.hasPrefix(".") else { continue }
                let path = next.hasSuffix("/") ? next + name : next + "/" + name
                switch kind(of: entry.pointee.d_type, at: path) {
                case .file: paths.append(path)
                case .folder: folders.append(path)
                case .other: break
                }
            }
        }
        return paths.sorted().map { URL(fileURLWithPath: $0, isDirectory: false) }
    }

    private enum Kind { case file, folder, other }

    /// The entry's kind from `readdir`, or from `lstat` on file systems that do not say.
    private static func kind(of type: UInt8, at path: String) -> Kind {
        switch Int32(type) {
        case Int32(DT_REG): return .file
        case Int32(DT_DIR): return .folder
        case Int32(DT_UNKNOWN):
            var status = stat()
            guard lstat(path, &status) == 0 else { return .other }
            switch status.st_mode & S_IFMT {
            case S_IFREG: return .file
            case S_IFDIR: return .folder
            default: return .other
            }
        default: return .other
        }
    }
}

import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A regular file opened for reading, whatever stands at its path: a symbolic link there is not
/// followed (`O_NOFOLLOW`), a FIFO does not hold up the open (`O_NONBLOCK`, cleared once the file is
/// known to be regular), and anything but a regular file (FIFO, socket, device, folder) is refused
/// after `fstat`, as is a file on one of the kernel's own file systems (`/proc`, `/sys` and their
/// kin), whose sizes say nothing of what a read yields (`/proc/self/pagemap` reports 0 bytes and
/// yields hundreds of GiB). Readers still count the bytes they take against `size`.
///
/// The descriptor is the caller's: `takeHandle()` hands it to a `FileHandle`, or `close()` closes it.
public struct RegularFile: ~Copyable {
    public let descriptor: Int32
    /// The size `fstat` reported when the file was opened.
    public let size: Int64
    public let modified: Date

    public static func open(_ url: URL) throws(MediaError) -> RegularFile {
        let name = url.lastPathComponent
        let descriptor = Glibc.open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, which is not followed" : String(cString: strerror(errno))
            throw MediaError(.unreadable, "Cannot open \(name): \(reason)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw MediaError(.unreadable, "Cannot read \(name): \(reason)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            throw MediaError(.unreadable, "\(name) is \(Self.kind(of: status.st_mode)), not a regular file; only files are read")
        }
        if let system = KernelFileSystem.of(descriptor: descriptor) {
            Glibc.close(descriptor)
            throw MediaError(.unreadable, "\(name) is on \(system), the kernel's view of the system, not a file of photos")
        }
        // Reads block as usual from here on: a regular file never needed O_NONBLOCK.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return RegularFile(descriptor: descriptor, size: Int64(status.st_size),
                  modified: Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9))
    }

    private init(descriptor: Int32, size: Int64, modified: Date) {
        self.descriptor = descriptor
        self.size = size
        self.modified = modified
    }

    /// A handle that owns the descriptor (closed with it).
    public consuming func takeHandle() -> FileHandle {
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        discard self
        return handle
    }

    /// The descriptor, now the caller's to close.
    public consuming func takeDescriptor() -> Int32 {
        let descriptor = self.descriptor
        discard self
        return descriptor
    }

    public consuming func close() {
        Glibc.close(descriptor)
        discard self
    }

    deinit { Glibc.close(descriptor) }

    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        default: "something else"
        }
    }
}

/// The kernel's pseudo file systems, which hold no media and whose files do not behave like files
/// (sizes that lie, reads that never end, folders that loop).
public enum KernelFileSystem {
    /// `statfs` magic numbers (linux/magic.h) and their names.
    static let names: [Int: String] = [
        0x9fa0: "/proc (procfs)", 0x6265_6572: "/sys (sysfs)", 0x6462_6720: "debugfs", 0x7472_6163: "tracefs",
        0x7363_6673: "securityfs", 0x0027_e0eb: "cgroupfs", 0x6367_7270: "cgroup2", 0xcafe_4a11: "bpffs",
        0x1cd1: "devpts", 0x6265_6570: "configfs", 0xde5e_81e4: "efivarfs", 0x6165_676c: "pstore",
        0x4249_4e4d: "binfmt_misc",
    ]

    /// The name of the kernel file system `descriptor` is on, or nil for an ordinary one.
    public static func of(descriptor: Int32) -> String? {
        var info = statfs()
        guard fstatfs(descriptor, &info) == 0 else { return nil }
        return name(Int(info.f_type))
    }

    /// The name of the kernel file system `path` is on, or nil for an ordinary one.
    public static func of(path: String) -> String? {
        var info = statfs()
        guard statfs(path, &info) == 0 else { return nil }
        return name(Int(info.f_type))
    }

    static func name(_ type: Int) -> String? {
        names[type & 0xffff_ffff]
    }
}

import Foundation
import LightboxProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's notices of changes in watched folders (inotify), read without blocking: the
/// descriptor is non-blocking, so `drain` takes what has queued and returns. The kernel bounds
/// its own queue; past it, it drops events and says so (`overflowed`), and the caller rescans.
final class FolderEvents: @unchecked Sendable {
    /// One change in a watched folder: `name` inside the folder watched as `watch`.
    struct Event: Sendable {
        var watch: Int32
        var mask: UInt32
        var cookie: UInt32
        var name: String

        var isFolder: Bool { mask & UInt32(IN_ISDIR) != 0 }
        func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
    }

    enum WatchError: Error {
        /// The per-user limit of watches (`fs.inotify.max_user_watches`) is used up.
        case limitReached
        /// The folder is gone, or not a folder the picker may read.
        case unavailable(String)
    }

    private let descriptor: Int32
    /// What a folder's watch listens for. Links are not followed; only folders are watched.
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_CREATE | IN_MODIFY | IN_ATTRIB)
        | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW) | UInt32(IN_EXCL_UNLINK)

    init() throws(LightboxError) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw LightboxError(.internal, "The picker cannot follow folders: inotify_init1 failed (\(String(cString: strerror(errno)))).")
        }
    }

    deinit { close(descriptor) }

    /// Starts watching the folder at `path`; returns its watch (the same one for a folder watched already).
    func watch(_ path: String) throws(WatchError) -> Int32 {
        let watch = inotify_add_watch(descriptor, path, Self.mask)
        guard watch >= 0 else {
            if errno == ENOSPC { throw .limitReached }
            throw .unavailable(String(cString: strerror(errno)))
        }
        return watch
    }

    func unwatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// The events queued now (at most `limit`; the rest wait in the kernel's queue), and whether
    /// the kernel dropped some (then the caller must rescan).
    func drain(limit: Int) -> (events: [Event], overflowed: Bool) {
        var events: [Event] = []
        var overflowed = false
        // Room for many events at once; the kernel never splits one across reads.
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while events.count < limit {
            let count = read(descriptor, buffer, capacity)
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameLength = Int(event.len)
                var name = ""
                if nameLength > 0 {
                    name = String(cString: (buffer + offset + header).assumingMemoryBound(to: CChar.self))
                }
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    overflowed = true
                } else {
                    events.append(Event(watch: event.wd, mask: event.mask, cookie: event.cookie, name: name))
                }
                offset += header + nameLength
            }
        }
        return (events, overflowed)
    }
}

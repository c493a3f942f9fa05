import CLinux
import Foundation
import LightboxProtocol
import LightboxTransport

#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes copied into an anonymous memory file, made read-only for its owner (0400) and
/// sealed for good (it can no longer be written, shrink or grow, and the seals cannot be lifted),
/// handed out as a read-only descriptor: a copy the receiver can neither change nor resize, even by
/// reopening it or changing its mode, and that no other file name reaches.
enum SealedCopy {
    /// Whether the file open at `descriptor` must reach `peer` as a sealed copy rather than itself:
    /// always when it is a copy with metadata removed (`removesMetadata`), and whenever the peer
    /// could change the file through its own descriptor — reopen `/proc/self/fd/N` for writing, or
    /// chmod it first. That is any peer of the file's owner (every native app in a per-user
    /// install), root, and anyone at all when group or others may write it. Only a peer of another
    /// user, facing a file only its owner may write, gets the file itself.
    static func isNeeded(for peer: PeerCredentials, fileAt descriptor: Int32, removesMetadata: Bool) -> Bool {
        guard !removesMetadata else { return true }
        var status = stat()
        // A file that cannot even be looked at is not handed out as it is.
        guard fstat(descriptor, &status) == 0 else { return true }
        return peer.userID == 0 || peer.userID == status.st_uid || status.st_mode & (S_IWGRP | S_IWOTH) != 0
    }

    /// A read-only descriptor of a sealed copy of the file open at `source` (its `size` bytes);
    /// the caller closes both.
    static func make(of source: Int32, size: Int64, name: String) throws(LightboxError) -> Int32 {
        let memory = lightbox_sealable_memory_file(name)
        guard memory >= 0 else { throw failure("create a memory file") }
        defer { close(memory) }
        var offset: off_t = 0
        while Int64(offset) < size {
            let copied = sendfile(memory, source, &offset, Int(min(size - Int64(offset), 1 << 30)))
            if copied < 0, errno == EINTR { continue }
            guard copied > 0 else { throw failure(copied == 0 ? "copy the file (it was shorter than its size)" : "copy the file") }
        }
        // Read-only before sealing, so that even a reopen by its owner's uid is refused for writing;
        // the seals then hold whatever mode anyone sets later.
        guard fchmod(memory, 0o400) == 0 else { throw failure("make the memory file read-only") }
        guard lightbox_seal_for_good(memory) == 0 else { throw failure("seal the memory file") }
        // A fresh open of the same memory file, read-only: the writable descriptor never leaves.
        let readOnly = open("/proc/self/fd/\(memory)", O_RDONLY | O_CLOEXEC)
        guard readOnly >= 0 else { throw failure("reopen the memory file read-only") }
        return readOnly
    }

    private static func failure(_ step: String) -> LightboxError {
        LightboxError(.internal, "The picker could not \(step) for delivery: \(String(cString: strerror(errno))); use provider.load.")
    }
}

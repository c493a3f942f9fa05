import CLinux
import Foundation
import LightboxProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes copied into an anonymous memory file, sealed for good (it can no longer be
/// written, shrink or grow, and the seals cannot be lifted), handed out as a read-only descriptor:
/// a copy the receiver can neither change nor resize, and that no other file name reaches.
enum SealedCopy {
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

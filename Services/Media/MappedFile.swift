import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's bytes mapped read-only into memory. libwebp's demuxer wants the whole file as one
/// buffer, and a GIF has no index to seek by; a mapping gives both one buffer while the kernel reads
/// only the pages they touch (for WebP: the chunk headers), so a large animation costs a few pages
/// rather than its size in memory.
///
/// The trade-off ImageIO makes too: if another process truncates the file while it is mapped, a read
/// past the new end faults. The mapping lives only for one metadata read.
///
/// A file whose contents are in memory already (`FileBytes(_:contents:)`) is not opened: its bytes
/// are copied into a buffer of their own instead.
final class MappedFile {
    let bytes: UnsafeRawBufferPointer
    private let isMapped: Bool

    init(_ file: FileBytes) throws(MediaError) {
        let name = file.url.lastPathComponent
        guard file.size > 0, file.size <= UInt64(Int.max) else { throw MediaError(.malformed, "\(name) is empty") }
        if let contents = file.contents {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: contents.count, alignment: 16)
            contents.copyBytes(to: copy)
            bytes = UnsafeRawBufferPointer(copy)
            isMapped = false
            return
        }
        let opened = try RegularFile.open(file.url)
        let count = Int(file.size)
        let base = mmap(nil, count, PROT_READ, MAP_PRIVATE, opened.descriptor, 0)
        opened.close()
        guard let base, base != MAP_FAILED else {
            throw MediaError(.unreadable, "Cannot map \(name): \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: base, count: count)
        isMapped = true
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        } else {
            bytes.deallocate()
        }
    }

    /// The byte at `index`, or a `malformed` error naming what ran past the end.
    func byte(at index: Int, in what: @autoclosure () -> String) throws(MediaError) -> UInt8 {
        guard index >= 0, index < bytes.count else {
            throw MediaError(.malformed, "\(what()) (truncated file?)")
        }
        return bytes[index]
    }
}

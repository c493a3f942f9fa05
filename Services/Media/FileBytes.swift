import Foundation

/// Random access to a file's bytes without reading it whole: parsers seek to the boxes they need.
/// A file already read into memory is served from there, without a system call per read. Only a
/// regular file is opened (`RegularFile`), and nothing past the size it had then is read.
final class FileBytes {
    let url: URL
    let size: UInt64
    private let source: Source

    private enum Source {
        case handle(FileHandle)
        case contents(Data)
    }

    init(_ url: URL) throws(MediaError) {
        self.url = url
        let file = try RegularFile.open(url)
        size = UInt64(max(0, file.size))
        source = .handle(file.takeHandle())
    }

    /// The file at `url`, whose whole contents the caller has just read.
    init(_ url: URL, contents: Data) {
        self.url = url
        source = .contents(contents)
        size = UInt64(contents.count)
    }

    /// The whole contents, when they were given rather than read from the file.
    var contents: Data? {
        if case .contents(let data) = source { data } else { nil }
    }

    deinit {
        if case .handle(let handle) = source { try? handle.close() }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    func read(at offset: UInt64, count: Int) throws(MediaError) -> Data {
        guard offset < size, count > 0 else { return Data() }
        switch source {
        case .contents(let data):
            let start = data.startIndex + Int(offset)
            // A copy, indexed from zero like what a FileHandle returns.
            return Data(data[start..<min(data.endIndex, start + count)])
        case .handle(let handle):
            do {
                try handle.seek(toOffset: offset)
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw MediaError(.unreadable, "Cannot read \(url.lastPathComponent): \(error.localizedDescription)")
            }
        }
    }

    /// Exactly `count` bytes at `offset`, or a `malformed` error naming what was cut short.
    func readExactly(at offset: UInt64, count: Int, what: String) throws(MediaError) -> Data {
        let data = try read(at: offset, count: count)
        guard data.count == count else {
            throw MediaError(.malformed, "\(url.lastPathComponent) ends inside its \(what) (truncated file?)")
        }
        return data
    }
}

extension Data {
    func uint16BE(at index: Int) -> UInt16 {
        UInt16(self[startIndex + index]) << 8 | UInt16(self[startIndex + index + 1])
    }

    func uint16LE(at index: Int) -> UInt16 {
        UInt16(self[startIndex + index + 1]) << 8 | UInt16(self[startIndex + index])
    }

    func uint32BE(at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[startIndex + index + $1]) }
    }

    func uint64BE(at index: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(self[startIndex + index + $1]) }
    }

    func ascii(at index: Int, count: Int) -> String {
        String(decoding: self[(startIndex + index)..<(startIndex + index + count)], as: UTF8.self)
    }
}

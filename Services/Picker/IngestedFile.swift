import CLinux
import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// One read of an owner's file at import: its SHA-256, size and modification time, and its bytes,
/// hashed as they are read. A small file is held in memory until it is stored (or dropped, when the
/// library has it already); a large one is streamed into a staging copy beside the originals as it
/// is hashed, and that copy is renamed into place. Either way the file is read once. A stored
/// copy's writeback to disk starts as soon as it is written, so that the batch's sync before its
/// commit (`DurableFiles`) finds the disk's work done or under way.
/// Blocking: call it on a pool thread.
struct IngestedFile: Sendable {
    enum Bytes: Sendable {
        case memory(Data)
        /// A private (0600) copy in the originals folder, not yet at its content address.
        case staged(URL)
    }

    let hash: String
    let bytes: Bytes
    let size: Int64
    let modified: Date

    /// Files up to this size are read into memory (at most one per import worker at once).
    static let inMemoryLimit: Int64 = 16 << 20
    static let pieceSize = 1 << 20

    /// The bytes, when they are held in memory.
    var contents: Data? {
        if case .memory(let data) = bytes { data } else { nil }
    }

    /// The metadata of `file`, this read's source: from the bytes held in memory, or from the file.
    func metadata(of file: URL) throws -> MediaMetadata {
        if let contents { return try MetadataReader.read(fileAt: file, contents: contents) }
        return try MetadataReader.read(fileAt: file)
    }

    /// Reads `file` once; a large one is staged into `staging` (a folder on the originals' file system).
    /// Only a regular file is read (`RegularFile`: no link followed, no FIFO, device or /proc file),
    /// and never more than the size it had when it was opened: the bytes are counted as they come,
    /// and a file that grows meanwhile is refused rather than read on.
    static func read(_ file: URL, staging: URL) throws -> IngestedFile {
        let opened = try RegularFile.open(file)
        let (size, modified) = (opened.size, opened.modified)
        let handle = opened.takeHandle()
        defer { try? handle.close() }
        var hasher = SHA256Hasher()
        if size <= inMemoryLimit {
            let data = try readCounting(handle, atMost: size, of: file) { _ in }
            hasher.update(data)
            return IngestedFile(hash: hasher.finalize(), bytes: .memory(data), size: Int64(data.count), modified: modified)
        }
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let copy = staging.appendingPathComponent("\(UUID().uuidString).partial")
        let output = try createPrivate(copy)
        defer { try? output.close() }
        do {
            var copied: Int64 = 0
            _ = try readCounting(handle, atMost: size, of: file) { piece in
                hasher.update(piece)
                try output.write(contentsOf: piece)
                copied += Int64(piece.count)
            }
            _ = lightbox_start_writeback(output.fileDescriptor)
            return IngestedFile(hash: hasher.finalize(), bytes: .staged(copy), size: copied, modified: modified)
        } catch {
            try? FileManager.default.removeItem(at: copy)
            throw error
        }
    }

    /// Reads `handle` to its end in pieces handed to `piece`, failing once more than `limit` bytes
    /// came. Returns the bytes when `limit` is at most `inMemoryLimit` (an in-memory read), else
    /// nothing: the pieces were the caller's to keep.
    private static func readCounting(_ handle: FileHandle, atMost limit: Int64, of file: URL,
                                     _ piece: (Data) throws -> Void) throws -> Data {
        var kept = Data()
        var total: Int64 = 0
        let keeps = limit <= inMemoryLimit
        if keeps { kept.reserveCapacity(Int(limit)) }
        // One byte past the limit is asked for, to see a file that grew.
        while let next = try handle.read(upToCount: Int(min(Int64(pieceSize), limit - total + 1))), !next.isEmpty {
            total += Int64(next.count)
            guard total <= limit else {
                throw LightboxError(.badMedia, "\(file.lastPathComponent) grew while it was read; import it again once it is complete.")
            }
            if keeps { kept.append(next) } else { try piece(next) }
        }
        return kept
    }

    /// Puts the bytes at `destination` (private to the owner), whole or not at all; when a file is
    /// there already (the same content, by its address), it is kept and the staging copy dropped.
    func store(at destination: URL) throws {
        try Self.createFolder(destination.deletingLastPathComponent())
        guard !FileManager.default.fileExists(atPath: destination.path) else { return discard() }
        switch bytes {
        case .memory(let data):
            // A name of its own: two workers may store the same content at once.
            let partial = destination.appendingPathExtension("partial-\(UUID().uuidString)")
            do {
                let output = try Self.createPrivate(partial)
                defer { try? output.close() }
                try output.write(contentsOf: data)
                _ = lightbox_start_writeback(output.fileDescriptor)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw error
            }
            try Self.rename(partial, to: destination)
        case .staged(let copy):
            try Self.rename(copy, to: destination)
        }
    }

    /// Removes the staging copy, if any (the content was not stored, or was there already).
    func discard() {
        if case .staged(let copy) = bytes { try? FileManager.default.removeItem(at: copy) }
    }

    /// Makes `folder` (and its parents) when it is missing. A `stat` first: the folders exist for
    /// nearly every file, and `mkdir` of an existing one is a failing system call, dearer than a `stat`.
    static func createFolder(_ folder: URL) throws {
        var status = stat()
        guard stat(folder.path, &status) != 0 || status.st_mode & S_IFMT != S_IFDIR else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A new file only the owner may read (0600 whatever the umask lets through, no more).
    private static func createPrivate(_ url: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    private static func rename(_ source: URL, to destination: URL) throws {
        guard Foundation.rename(source.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: source)
            throw CocoaError(.fileWriteUnknown)
        }
    }
}

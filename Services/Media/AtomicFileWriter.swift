import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that it is either whole or absent: into a temporary file beside the
/// destination (same folder, so the same file system), then renamed over it. A failure removes the
/// temporary file and leaves any earlier destination as it was.
enum AtomicFileWriter {
    /// Calls `produce` with the temporary file's URL, then moves that file to `destination`.
    static func write(to destination: URL, _ produce: (URL) throws(MediaError) -> Void) throws(MediaError) {
        let folder = destination.deletingLastPathComponent()
        // Keep the extension: writers such as libvips pick the format by it.
        let temporary = folder.appendingPathComponent(".\(destination.deletingPathExtension().lastPathComponent).\(UUID().uuidString).partial")
            .appendingPathExtension(destination.pathExtension.isEmpty ? "tmp" : destination.pathExtension)
        do throws(MediaError) {
            try produce(temporary)
            guard rename(temporary.path, destination.path) == 0 else {
                throw MediaError(.unwritable, "Cannot write \(destination.lastPathComponent): \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Writes `data` to `destination` atomically.
    static func write(_ data: Data, to destination: URL) throws(MediaError) {
        try write(to: destination) { (temporary) throws(MediaError) in
            do {
                try data.write(to: temporary)
            } catch {
                throw MediaError(.unwritable, "Cannot write \(destination.lastPathComponent): \(error.localizedDescription)")
            }
        }
    }
}

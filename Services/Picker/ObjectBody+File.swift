import Foundation
import LightboxObjectStore
import NIOFileSystem

extension ObjectBody {
    /// Writes the object's bytes to a new private file (0600) at `destination` as they arrive: memory
    /// stays one chunk whatever the object's size.
    func write(to destination: URL) async throws {
        try await FileSystem.shared.withFileHandle(
            forWritingAt: FilePath(destination.path), options: .newFile(replaceExisting: true, permissions: .ownerReadWrite)
        ) { handle in
            var offset: Int64 = 0
            for try await chunk in self {
                offset += try await handle.write(contentsOf: chunk, toAbsoluteOffset: offset)
            }
        }
    }
}

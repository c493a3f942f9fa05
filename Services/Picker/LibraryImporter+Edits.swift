import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// Taking in an app's edited version of an asset, as an import takes in a file: read by
/// Services/Media (type by content, metadata), a photo proven to decode, stored beside the
/// originals under a name of its own and made durable before the catalog names it.
extension LibraryImporter {
    /// The edited file, stored and durable; `AssetEdit` without the app's part.
    struct StoredEdit: Sendable {
        var contentHash: String
        var storedPath: String
        var metadata: MediaMetadata
        var size: Int64
    }

    /// Stores `bytes` as the edited version of `original`. The edit must be media of the same
    /// kind as the original (a photo for a photo, a movie for a movie), in any format the library
    /// imports; anything else is refused (`badMedia`, `badRequest`) and nothing is kept.
    func storeEdit(_ bytes: Data, of original: AssetRecord) async throws -> StoredEdit {
        let originals = catalog.originals
        let proveDecodes = self.proveDecodes
        let (stored, proved) = try await onPool { () -> (StoredEdit, Int64) in
            try FileManager.default.createDirectory(at: originals, withIntermediateDirectories: true)
            let staging = originals.appendingPathComponent("\(UUID().uuidString).edit.partial")
            defer { try? FileManager.default.removeItem(at: staging) }
            try bytes.write(to: staging)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: staging.path)
            let metadata: MediaMetadata
            do {
                metadata = try MetadataReader.read(fileAt: staging, contents: bytes)
            } catch let error as MediaError {
                throw error.during(.acceptEditedFile)
            }
            guard metadata.mediaType == original.mediaType else {
                let kind = original.mediaType == .video ? "a movie" : "a photo"
                throw LightboxError(.badRequest, "\(original.identifier) is \(kind), and its edited version must be \(kind) too; "
                    + "this file is \(metadata.type.identifier).")
            }
            let hash = SHA256Hasher.hex(bytes)
            // A name of its own: the same bytes may be another asset's original or edit.
            let storedPath = "\(hash.prefix(2))/\(hash)-edit-\(UUID().uuidString.prefix(8).lowercased())."
                + (metadata.type.preferredFilenameExtension ?? "bin")
            let destination = originals.appendingPathComponent(storedPath)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: staging, to: destination)
            var proved: Int64 = 0
            if metadata.mediaType == .image {
                do {
                    proved = try proveDecodes(destination, bytes, hash)
                } catch {
                    try? FileManager.default.removeItem(at: destination)
                    let reason = (error as? MediaError)?.message ?? (error as? LightboxError)?.message ?? "\(error)"
                    throw LightboxError(.badMedia, "The edited version of \(original.identifier) was not saved because it does not decode: \(reason)")
                }
            }
            return (StoredEdit(contentHash: hash, storedPath: storedPath, metadata: metadata, size: Int64(bytes.count)), proved)
        }
        if proved > 0 { await provedBytes?(proved) }
        let file = originals.appendingPathComponent(stored.storedPath)
        do {
            try await DurableFiles.makeDurable([file])
            try await catalog.originalStore.keep([OriginalFile(path: stored.storedPath)])
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return stored
    }
}

import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media

/// Imports a folder of media into the catalog: type by content, metadata, a content-addressed copy
/// of the original. Importing the same bytes again changes nothing (same identifier).
struct LibraryImporter: Sendable {
    let catalog: Catalog
    let logger: Logger
    /// Renders a stored image's owner thumbnail, proving that it decodes (as photo libraries do at
    /// import); throws with the decoder's reason when it does not. The service's version caches the
    /// thumbnail; without one, the image is rendered and the result dropped.
    var proveDecodes: (@Sendable (AssetRecord) async throws -> Void)? = nil

    /// Checks an owner-given path before it touches the file system: absolute, no `..`, a folder.
    static func validatedFolder(_ path: String) throws(LightboxError) -> URL {
        guard path.hasPrefix("/") else {
            throw LightboxError(.badRequest, "Give the folder as an absolute path (the picker may run in another directory).")
        }
        guard !path.split(separator: "/").contains("..") else {
            throw LightboxError(.badRequest, "The folder path must not contain \"..\".")
        }
        let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LightboxError(.notFound, "\(path) is not a folder the picker can read.")
        }
        return url
    }

    func importFolder(_ folder: URL, progress: (ImportProgress) -> Void) async throws -> ImportSummary {
        let files = mediaCandidates(in: folder)
        // Each file's headers are read once: for pairing Live Photos here, and for its import below.
        let candidates = files.compactMap { url in
            (try? MetadataReader.read(fileAt: url)).map { LivePhotoPairing.Candidate(url: url, metadata: $0) }
        }
        let known = Dictionary(candidates.map { ($0.url, $0.metadata) }, uniquingKeysWith: { first, _ in first })
        let livePhotos = LivePhotoPairing.pairs(candidates)
        let pairedMovies = Set(livePhotos.values)
        var summary = ImportSummary(imported: [], unchanged: [], failed: [])
        for (index, file) in files.enumerated() {
            let relative = String(file.path.dropFirst(folder.path.count).drop { $0 == "/" })
            // A Live Photo's movie is imported with its still, as one asset.
            if pairedMovies.contains(file) {
                progress(ImportProgress(completed: index + 1, total: files.count, file: relative))
                continue
            }
            do {
                let (identifier, isNew) = try await importFile(file, metadata: known[file], pairedMovie: livePhotos[file])
                if isNew { summary.imported.append(identifier) } else { summary.unchanged.append(identifier) }
            } catch let error as MediaError {
                summary.failed.append(ImportFailure(file: relative, code: .badMedia, message: error.message))
            } catch let error as LightboxError {
                summary.failed.append(ImportFailure(file: relative, code: error.code, message: error.message))
            } catch {
                summary.failed.append(ImportFailure(file: relative, code: .internal, message: "\(error)"))
            }
            progress(ImportProgress(completed: index + 1, total: files.count, file: relative))
        }
        logger.info("import finished", metadata: [
            "folder": "\(folder.path)", "imported": "\(summary.imported.count)",
            "unchanged": "\(summary.unchanged.count)", "failed": "\(summary.failed.count)",
        ])
        return summary
    }

    /// Regular, visible files below `folder`, in a stable order.
    func mediaCandidates(in folder: URL) -> [URL] {
        let keys: [URLResourceKey] = [.isRegularFileKey]
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys,
                                                              options: [.skipsHiddenFiles]) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: Set(keys)).isRegularFile) == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Imports one of the owner's files; `fileName` overrides the name the asset is listed under;
    /// `metadata`, when the caller has read it already, saves reading the headers again;
    /// `pairedMovie` makes it a Live Photo. Idempotent: the identifier comes from the content, so
    /// the same bytes give the same asset.
    func importFile(_ file: URL, fileName: String? = nil, metadata known: MediaMetadata? = nil,
                    pairedMovie: URL? = nil) async throws -> (identifier: String, isNew: Bool) {
        let metadata = try known ?? MetadataReader.read(fileAt: file)
        let hash = try SHA256Hasher.hex(fileAt: file)
        let identifier = AssetIdentifier.make(contentHash: hash)
        if try await catalog.asset(identifier) != nil { return (identifier, false) }
        let storedPath = "\(hash.prefix(2))/\(hash).\(metadata.type.preferredFilenameExtension ?? "bin")"
        try store(file, at: storedPath, moving: false)
        var record = try self.record(of: file, metadata: metadata, hash: hash, identifier: identifier, storedPath: storedPath,
                                     fileName: fileName ?? file.lastPathComponent)
        try await decodes(record)
        if let pairedMovie { try pair(&record, with: pairedMovie) }
        try await catalog.insert(record)
        return (record.identifier, true)
    }

    /// A new asset made by an app from `file` (which is moved into the library): always a new
    /// identifier and its own stored copy, even when the library already holds the same bytes, so
    /// creating tells the app nothing about what else is in the library.
    func createAsset(from file: URL, fileName: String) async throws -> String {
        let metadata = try MetadataReader.read(fileAt: file)
        let hash = try SHA256Hasher.hex(fileAt: file)
        let identifier = AssetIdentifier.makeUnique()
        let storedPath = "\(hash.prefix(2))/\(hash)-\(identifier.prefix(8).lowercased()).\(metadata.type.preferredFilenameExtension ?? "bin")"
        let record = try self.record(of: file, metadata: metadata, hash: hash, identifier: identifier, storedPath: storedPath, fileName: fileName)
        try store(file, at: storedPath, moving: true)
        try await decodes(record)
        try await catalog.insert(record)
        return identifier
    }

    /// Images must decode before they join the library; one that does not leaves no stored copy.
    private func decodes(_ record: AssetRecord) async throws {
        guard record.mediaType == .image else { return }
        let stored = catalog.originalURL(of: record)
        do {
            if let proveDecodes {
                try await proveDecodes(record)
            } else {
                _ = try ImageRenderer.thumbnail(of: stored, targetWidth: 256, targetHeight: 256, contentMode: .fit, quality: 80)
            }
        } catch let error as MediaError {
            try? FileManager.default.removeItem(at: stored)
            let reason = error.message.replacingOccurrences(of: stored.lastPathComponent, with: record.fileName)
            throw LightboxError(.badMedia, "\(record.fileName) was not imported because it does not decode. \(reason)")
        } catch let error as LightboxError {
            try? FileManager.default.removeItem(at: stored)
            // The decoder names the library's copy; the owner knows the file by its own name.
            let reason = error.message.replacingOccurrences(of: stored.lastPathComponent, with: record.fileName)
            throw LightboxError(error.code, "\(record.fileName) was not imported because it does not decode. \(reason)")
        } catch {
            try? FileManager.default.removeItem(at: stored)
            throw error
        }
    }

    /// Makes `record` a Live Photo with `movie` as its paired resource, stored content-addressed
    /// beside the originals.
    func pair(_ record: inout AssetRecord, with movie: URL) throws {
        let metadata = try MetadataReader.read(fileAt: movie)
        let hash = try SHA256Hasher.hex(fileAt: movie)
        let storedPath = "\(hash.prefix(2))/\(hash).\(metadata.type.preferredFilenameExtension ?? "mov")"
        try store(movie, at: storedPath, moving: false)
        record.pairedPath = storedPath
        record.pairedHash = hash
        record.pairedType = metadata.type
        record.subtypes = Set(record.subtypes.split(separator: ",").map(String.init) + [MediaSubtype.livePhoto.rawValue])
            .sorted().joined(separator: ",")
    }

    /// Puts the original at `storedPath` under the originals folder, through a partial file.
    private func store(_ file: URL, at storedPath: String, moving: Bool) throws {
        let destination = catalog.originals.appendingPathComponent(storedPath)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard !FileManager.default.fileExists(atPath: destination.path) else { return }
        let partial = destination.appendingPathExtension("partial")
        try? FileManager.default.removeItem(at: partial)
        if moving { try FileManager.default.moveItem(at: file, to: partial) } else { try FileManager.default.copyItem(at: file, to: partial) }
        // A copy keeps the source's mode; the library's copy is the owner's alone.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial.path)
        try FileManager.default.moveItem(at: partial, to: destination)
    }

    private func record(
        of file: URL, metadata: MediaMetadata, hash: String, identifier: String, storedPath: String, fileName: String
    ) throws -> AssetRecord {
        // Without a capture date in the file, the original's modification time stands in.
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let modified = attributes[.modificationDate] as? Date ?? Date()
        return AssetRecord(
            identifier: identifier, contentHash: hash, fileName: SafeFileName.make(fileName),
            storedPath: storedPath, type: metadata.type, mediaType: metadata.mediaType,
            subtypes: metadata.subtypes.map(\.rawValue).sorted().joined(separator: ","),
            pixelWidth: metadata.pixelWidth, pixelHeight: metadata.pixelHeight, frameCount: metadata.frameCount,
            duration: metadata.duration, fileSize: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
            creationDate: metadata.creationDate ?? modified, importedAt: Date(),
            properties: String(decoding: (try? JSONEncoder().encode(metadata.imageProperties)) ?? Data("{}".utf8), as: UTF8.self))
    }
}

import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media
import Places

/// Imports a folder of media into the catalog: type by content, metadata, a content-addressed copy
/// of the original. Importing the same bytes again changes nothing (same identifier).
///
/// Files are imported in parallel, up to the core count at once. Each file's headers are read first
/// (for pairing Live Photos); then it is read once, hashed as it is read and copied from the same
/// bytes (`IngestedFile`). Every blocking step (reading, hashing, copying, the decode proof) runs on
/// `pool`, the picker's render pool: one bound for all the picker's CPU work, so an import and apps'
/// renderings share the cores rather than oversubscribing them. The records are inserted in file
/// order, a batch per transaction, once the batch's stored files are synced (`commit`).
struct LibraryImporter: Sendable {
    let catalog: Catalog
    let logger: Logger
    let pool: BlockingWorkPool
    /// Renders a stored image's owner thumbnail, proving that it decodes (as photo libraries do at
    /// import); throws with the decoder's reason when it does not. Blocking: it runs in the pool job
    /// that stored the image, so a file costs one trip to the pool, not two. Returns the bytes it
    /// added to a derivative cache: the service's version keeps the thumbnail there; by default
    /// the image is rendered and the result dropped. `contents` are the file's bytes when the
    /// import holds them in memory (then the stored copy is not read again).
    var proveDecodes: @Sendable (_ stored: URL, _ contents: Data?, _ contentHash: String) throws -> Int64 = { stored, contents, _ in
        let side = RenditionKey.ownerThumbnailSide
        _ = try ImageRenderer.thumbnail(of: stored, contents: contents, targetWidth: side, targetHeight: side, contentMode: .fit,
                                        quality: RenditionKey.ownerThumbnailQuality)
        return 0
    }
    /// Told the bytes each `proveDecodes` added (the service counts them into its cache's quota).
    var provedBytes: (@Sendable (Int64) async -> Void)? = nil
    /// Names the city and country of a photo's GPS position, offline; nil: no place is named.
    var places: ReverseGeocoder? = nil

    /// Records inserted per transaction.
    static let batchSize = 500

    /// Pool threads the import keeps busy: one per core, no more than the pool has.
    var cores: Int { max(1, min(ProcessInfo.processInfo.activeProcessorCount, pool.threadCount)) }
    /// Files in flight at once: two per busy thread, so that while one file waits between its steps
    /// (the catalog, the derivative cache) the other keeps the thread busy. The CPU work itself never
    /// runs on more than `cores` threads: it runs on the pool.
    var width: Int { 2 * cores }
    /// Files whose headers one pool job reads.
    static let headerChunk = 64

    /// Checks an owner-given path before it touches the file system: absolute, no `..`, a folder.
    static func validatedFolder(_ path: String) throws(LightboxError) -> URL {
        guard path.hasPrefix("/") else {
            throw LightboxError(.badRequest, "Give the folder as an absolute path (the picker may run in another directory).")
        }
        guard !path.split(separator: "/").contains("..") else {
            throw LightboxError(.badRequest, "The folder path must not contain \"..\".")
        }
        let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        // The kernel's trees hold no photos, and their files lie about their sizes.
        let resolved = url.path
        if let tree = ["/proc", "/sys", "/dev"].first(where: { resolved == $0 || resolved.hasPrefix($0 + "/") }) {
            throw LightboxError(.badRequest, "\(path) is inside \(tree), the kernel's view of the system, not a folder of photos; choose a folder of your own.")
        }
        if let system = KernelFileSystem.of(path: resolved) {
            throw LightboxError(.badRequest, "\(path) is on \(system), the kernel's view of the system, not a folder of photos; choose a folder of your own.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LightboxError(.notFound, "\(path) is not a folder the picker can read.")
        }
        return url
    }

    func importFolder(_ folder: URL, progress: (ImportProgress) -> Void) async throws -> ImportSummary {
        let files = try mediaCandidates(in: folder)
        // Each file's headers are read once: for pairing Live Photos here, and for its import below.
        var headers = [MediaMetadata?](repeating: nil, count: files.count)
        let chunks = stride(from: 0, to: files.count, by: Self.headerChunk).map { $0..<min($0 + Self.headerChunk, files.count) }
        try await Self.forEach(chunks.count, width: cores) { [self] chunk in
            try await onPool { chunks[chunk].map { try? MetadataReader.read(fileAt: files[$0]) } }
        } collect: { chunk, metadata in
            headers.replaceSubrange(chunks[chunk], with: metadata)
        }
        let candidates = files.indices.compactMap { index in
            headers[index].map { LivePhotoPairing.Candidate(url: files[index], metadata: $0) }
        }
        let known = Dictionary(candidates.map { ($0.url, $0.metadata) }, uniquingKeysWith: { first, _ in first })
        let livePhotos = LivePhotoPairing.pairs(candidates)
        let pairedMovies = Set(livePhotos.values)
        @Sendable func relative(_ file: URL) -> String { String(file.path.dropFirst(folder.path.count).drop { $0 == "/" }) }

        var outcomes = [Outcome?](repeating: nil, count: files.count)
        var completed = 0
        // Records ready and not inserted yet, in file order; `ordered` files have been looked at for it.
        var ready: [AssetRecord] = []
        var ordered = 0
        var inserted: Set<String> = []
        var committing: Task<Set<String>, any Error>?
        try await Self.forEach(files.count, width: width) { [self] index in
            let file = files[index]
            // A Live Photo's movie is imported with its still, as one asset.
            if pairedMovies.contains(file) { return Outcome.pairedMovie }
            do {
                let movie = livePhotos[file].map { (url: $0, metadata: known[$0]) }
                return .prepared(try await prepare(file, metadata: known[file], pairedMovie: movie))
            } catch {
                return .failed(Self.failure(error, file: relative(file)))
            }
        } collect: { index, outcome in
            outcomes[index] = outcome
            completed += 1
            progress(ImportProgress(completed: completed, total: files.count, file: relative(files[index])))
            while ordered < files.count, let next = outcomes[ordered] {
                if case .prepared(.new(let record)) = next { ready.append(record) }
                ordered += 1
            }
            if ready.count >= Self.batchSize {
                // A batch commits (its files synced, then its rows inserted) while the next is prepared.
                if let committing { inserted.formUnion(try await committing.value) }
                let batch = ready
                committing = Task { [self] in try await commit(batch) }
                ready.removeAll()
            }
        }
        if let committing { inserted.formUnion(try await committing.value) }
        inserted.formUnion(try await commit(ready))

        var summary = ImportSummary(imported: [], unchanged: [], failed: [])
        for outcome in outcomes {
            switch outcome {
            case .prepared(.new(let record)):
                // Of several files with the same bytes only the first is new; a record another import
                // inserted first is unchanged.
                if inserted.remove(record.identifier) != nil {
                    summary.imported.append(record.identifier)
                } else {
                    summary.unchanged.append(record.identifier)
                }
            case .prepared(.unchanged(let identifier)): summary.unchanged.append(identifier)
            case .failed(let failure): summary.failed.append(failure)
            case .pairedMovie, nil: break
            }
        }
        logger.info("import finished", metadata: [
            "folder": "\(folder.path)", "imported": "\(summary.imported.count)",
            "unchanged": "\(summary.unchanged.count)", "failed": "\(summary.failed.count)",
        ])
        return summary
    }

    enum Prepared: Sendable {
        /// The library has these bytes already.
        case unchanged(String)
        /// Stored and proven to decode; not inserted yet.
        case new(AssetRecord)
    }

    enum Outcome: Sendable {
        case prepared(Prepared)
        case failed(ImportFailure)
        case pairedMovie
    }

    static func failure(_ error: any Error, file: String) -> ImportFailure {
        switch error {
        case let error as MediaError: ImportFailure(file: file, code: .badMedia, message: error.message)
        case let error as LightboxError: ImportFailure(file: file, code: error.code, message: error.message)
        default: ImportFailure(file: file, code: .internal, message: "\(error)")
        }
    }

    /// Runs `body` for 0..<count, at most `width` at once, handing each result to `collect` on the
    /// calling task as it comes.
    static func forEach<Result: Sendable>(
        _ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> Result,
        collect: (Int, Result) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            func start() {
                guard next < count else { return }
                let index = next
                group.addTask { (index, try await body(index)) }
                next += 1
            }
            for _ in 0..<width { start() }
            while let (index, result) = try await group.next() {
                try await collect(index, result)
                start()
            }
        }
    }

    /// Import work waits for room on the pool rather than failing: apps' renderings may fill it for
    /// a moment, and the owner's import should not lose files to that.
    func onPool<Result: Sendable>(_ job: @escaping @Sendable () throws -> Result) async throws -> Result {
        while true {
            do {
                return try await pool.run(job)
            } catch let error as LightboxError where error.code == .busy {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Regular, visible files below `folder`, in a stable order.
    func mediaCandidates(in folder: URL) throws(LightboxError) -> [URL] {
        try FolderListing.regularFiles(below: folder)
    }

    /// Imports one of the owner's files; `fileName` overrides the name the asset is listed under;
    /// `metadata`, when the caller has read it already, saves reading the headers again;
    /// `pairedMovie` makes it a Live Photo. Idempotent: the identifier comes from the content, so
    /// the same bytes give the same asset.
    func importFile(_ file: URL, fileName: String? = nil, metadata known: MediaMetadata? = nil,
                    pairedMovie: URL? = nil) async throws -> (identifier: String, isNew: Bool) {
        switch try await prepare(file, fileName: fileName, metadata: known, pairedMovie: pairedMovie.map { ($0, nil) }) {
        case .unchanged(let identifier):
            return (identifier, false)
        case .new(let record):
            return (record.identifier, try await commit([record]).contains(record.identifier))
        }
    }

    /// Everything `importFile` does but the insert: the file read once (hashed as it is read), its
    /// copy stored, the image proven to decode, the Live Photo's movie stored beside it.
    func prepare(_ file: URL, fileName: String? = nil, metadata known: MediaMetadata? = nil,
                 pairedMovie: (url: URL, metadata: MediaMetadata?)? = nil) async throws -> Prepared {
        let catalog = self.catalog
        let proveDecodes = self.proveDecodes
        let name = SafeFileName.make(fileName ?? file.lastPathComponent)
        let findsEmbeddedMovie = pairedMovie == nil
        // One pool job: read (and hash), look the content up, store the copy, prove it decodes, and
        // look for an embedded movie, all from the bytes read once.
        let (read, metadata, isKnown, proved, finding) = try await onPool {
            () -> (Read, MediaMetadata, Bool, Int64, MotionPhotoReader.Finding) in
            let ingested = try IngestedFile.read(file, staging: catalog.originals)
            defer { ingested.discard() }
            let metadata = try known ?? ingested.metadata(of: file)
            let isKnown = try catalog.containsAsset(AssetIdentifier.make(contentHash: ingested.hash))
            var proved: Int64 = 0
            var finding = MotionPhotoReader.Finding.none
            if !isKnown {
                let stored = catalog.originals.appendingPathComponent(Self.storedPath(ingested.hash, metadata))
                try ingested.store(at: stored)
                if metadata.mediaType == .image {
                    proved = try Self.decodes(stored, named: name) { try proveDecodes(stored, ingested.contents, ingested.hash) }
                }
                if findsEmbeddedMovie, LivePhotoPairing.stillTypes.contains(metadata.type) {
                    finding = try ingested.contents.map { try MotionPhotoReader.find(inFileAt: stored, contents: $0) }
                        ?? MotionPhotoReader.find(inFileAt: stored)
                }
            }
            return (Read(hash: ingested.hash, size: ingested.size, modified: ingested.modified), metadata, isKnown, proved, finding)
        }
        let identifier = AssetIdentifier.make(contentHash: read.hash)
        if isKnown { return .unchanged(identifier) }
        if proved > 0 { await provedBytes?(proved) }
        var record = self.record(metadata: metadata, hash: read.hash, identifier: identifier, storedPath: Self.storedPath(read.hash, metadata),
                                 fileName: fileName ?? file.lastPathComponent, size: read.size, modified: read.modified)
        if let pairedMovie {
            try await pair(&record, with: pairedMovie.url, metadata: pairedMovie.metadata)
        } else {
            try await pairEmbeddedMovie(&record, finding)
        }
        return .new(record)
    }

    /// Makes a Motion Photo (a still with an MP4 inside, `MotionPhotoReader`; `finding` is what
    /// the reader found in the stored original) a Live Photo: its movie is copied out of the stored
    /// original and stored as the paired movie, so loads, opens and the cloud tier treat it like an
    /// Apple pair's. The still keeps its whole original. A file whose claim of a movie does not
    /// hold stays a plain still, and the reason is logged.
    func pairEmbeddedMovie(_ record: inout AssetRecord, _ finding: MotionPhotoReader.Finding) async throws {
        if case .ignored(let reason) = finding {
            logger.notice("not a Motion Photo", metadata: ["file": "\(record.fileName)", "reason": "\(reason)"])
        }
        guard case .motionPhoto(let photo) = finding else { return }
        let original = catalog.originalURL(of: record)
        let staging = catalog.originals.appendingPathComponent("\(UUID().uuidString).motion-photo.partial")
        defer { try? FileManager.default.removeItem(at: staging) }
        try await onPool { try MotionPhotoReader.copyMovie(photo, from: original, to: staging) }
        try await pair(&record, with: staging)
        var properties = record.imageProperties
        var motion: [String: JSONValue] = ["Layout": .string(photo.layout.rawValue),
                                           "MovieOffset": .number(Double(photo.movieRange.lowerBound)),
                                           "MovieLength": .number(Double(photo.movieRange.count))]
        if let timestamp = photo.presentationTimestampMicroseconds {
            motion["PresentationTimestampMicroseconds"] = .number(Double(timestamp))
        }
        properties["{MotionPhoto}"] = .object(motion)
        record.properties = String(decoding: (try? JSONEncoder().encode(properties)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// What a read of a file found, without its bytes.
    struct Read: Sendable {
        var hash: String
        var size: Int64
        var modified: Date
    }

    /// Where an imported original is kept, relative to the originals folder: by its content.
    static func storedPath(_ hash: String, _ metadata: MediaMetadata, fallbackExtension: String = "bin") -> String {
        "\(hash.prefix(2))/\(hash).\(metadata.type.preferredFilenameExtension ?? fallbackExtension)"
    }

    /// A new asset made by an app from `file` (which is moved into the library): always a new
    /// identifier and its own stored copy, even when the library already holds the same bytes, so
    /// creating tells the app nothing about what else is in the library.
    func createAsset(from file: URL, fileName: String) async throws -> String {
        let (metadata, hash, size, modified) = try await onPool {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            return (try MetadataReader.read(fileAt: file), try SHA256Hasher.hex(fileAt: file),
                    (attributes[.size] as? NSNumber)?.int64Value ?? 0, attributes[.modificationDate] as? Date ?? Date())
        }
        let identifier = AssetIdentifier.makeUnique()
        let storedPath = "\(hash.prefix(2))/\(hash)-\(identifier.prefix(8).lowercased()).\(metadata.type.preferredFilenameExtension ?? "bin")"
        let record = self.record(metadata: metadata, hash: hash, identifier: identifier, storedPath: storedPath, fileName: fileName,
                                 size: size, modified: modified)
        let destination = catalog.originals.appendingPathComponent(storedPath)
        let proveDecodes = self.proveDecodes
        let proved = try await onPool {
            try Self.move(file, to: destination)
            guard record.mediaType == .image else { return Int64(0) }
            return try Self.decodes(destination, named: record.fileName) { try proveDecodes(destination, nil, hash) }
        }
        if proved > 0 { await provedBytes?(proved) }
        try await commit([record])
        return identifier
    }

    /// Inserts the records once their stored files are durable (`makeDurable`): an acknowledged
    /// import survives a crash with its files. Returns the identifiers that were new, as
    /// `Catalog.insert` does.
    @discardableResult
    func commit(_ records: [AssetRecord]) async throws -> Set<String> {
        guard !records.isEmpty else { return [] }
        try await makeDurable(records)
        return try await catalog.insert(records)
    }

    /// Makes the records' stored files durable: written unsynced, they are synced here once per
    /// batch (`DurableFiles`), then kept by the original store (uploaded, when it is an object
    /// store: the rows are committed only once it confirmed every file).
    func makeDurable(_ records: [AssetRecord]) async throws {
        let files = records.flatMap(storedFiles)
        try await DurableFiles.makeDurable(files)
        try await catalog.originalStore.keep(records.flatMap(storedOriginals))
    }

    /// The files stored for a record: its original, and a Live Photo's movie.
    func storedFiles(of record: AssetRecord) -> [URL] {
        [catalog.originalURL(of: record)] + (record.pairedPath.map { [catalog.originals.appendingPathComponent($0)] } ?? [])
    }

    /// The originals stored for a record, as `storedFiles` names them.
    func storedOriginals(of record: AssetRecord) -> [OriginalFile] {
        [record.original] + (record.pairedPath.map { [OriginalFile(path: $0)] } ?? [])
    }

    /// Images must decode before they join the library; one that does not leaves no stored copy.
    /// Runs `prove` on the calling (pool) thread; the owner's name for the file replaces the
    /// library copy's name in the decoder's reason.
    private static func decodes(_ stored: URL, named name: String, _ prove: () throws -> Int64) throws -> Int64 {
        do {
            return try prove()
        } catch let error as MediaError {
            try? FileManager.default.removeItem(at: stored)
            let reason = error.message.replacingOccurrences(of: stored.lastPathComponent, with: name)
            throw LightboxError(.badMedia, "\(name) was not imported because it does not decode. \(reason)")
        } catch let error as LightboxError {
            try? FileManager.default.removeItem(at: stored)
            let reason = error.message.replacingOccurrences(of: stored.lastPathComponent, with: name)
            throw LightboxError(error.code, "\(name) was not imported because it does not decode. \(reason)")
        } catch {
            try? FileManager.default.removeItem(at: stored)
            throw error
        }
    }

    /// Makes `record` a Live Photo with `movie` as its paired resource, stored content-addressed
    /// beside the originals; `metadata` is the movie's, when the caller has read it already.
    func pair(_ record: inout AssetRecord, with movie: URL, metadata known: MediaMetadata? = nil) async throws {
        let originals = catalog.originals
        let (hash, storedPath, type) = try await onPool { () -> (String, String, UTType) in
            let ingested = try IngestedFile.read(movie, staging: originals)
            defer { ingested.discard() }
            let metadata = try known ?? ingested.metadata(of: movie)
            let storedPath = Self.storedPath(ingested.hash, metadata, fallbackExtension: "mov")
            try ingested.store(at: originals.appendingPathComponent(storedPath))
            return (ingested.hash, storedPath, metadata.type)
        }
        record.pairedPath = storedPath
        record.pairedHash = hash
        record.pairedType = type
        record.subtypes = Set(record.subtypes.split(separator: ",").map(String.init) + [MediaSubtype.livePhoto.rawValue])
            .sorted().joined(separator: ",")
    }

    /// Moves an app's file to `destination` under the originals folder, private to the owner.
    private static func move(_ file: URL, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard !FileManager.default.fileExists(atPath: destination.path) else { return }
        let partial = destination.appendingPathExtension("partial-\(UUID().uuidString)")
        try FileManager.default.moveItem(at: file, to: partial)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial.path)
        try FileManager.default.moveItem(at: partial, to: destination)
    }

    private func record(
        metadata: MediaMetadata, hash: String, identifier: String, storedPath: String, fileName: String, size: Int64, modified: Date
    ) -> AssetRecord {
        // The place is named here, offline, once: the catalog keeps it for the owner's search.
        let place = metadata.location.flatMap { places?.place(latitude: $0.latitude, longitude: $0.longitude) }
        // Without a capture date in the file, the original's modification time stands in.
        return AssetRecord(
            identifier: identifier, contentHash: hash, fileName: SafeFileName.make(fileName),
            storedPath: storedPath, type: metadata.type, mediaType: metadata.mediaType,
            subtypes: metadata.subtypes.map(\.rawValue).sorted().joined(separator: ","),
            pixelWidth: metadata.pixelWidth, pixelHeight: metadata.pixelHeight, frameCount: metadata.frameCount,
            duration: metadata.duration, fileSize: size,
            creationDate: metadata.creationDate ?? modified, importedAt: Date(),
            properties: String(decoding: (try? JSONEncoder().encode(metadata.imageProperties)) ?? Data("{}".utf8), as: UTF8.self),
            city: place?.city, country: place?.country, camera: CameraName.make(make: metadata.cameraMake, model: metadata.cameraModel))
    }
}

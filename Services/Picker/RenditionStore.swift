import Foundation
import LightboxProtocol
import Logging
import Media

/// Every rendition in one place: stills at the sizes requests ask for, the owner's thumbnails and
/// movies' poster frames, movies' H.264 versions, compatible JPEGs and copies without metadata.
/// Each is named by its `RenditionKey` and answered from the memory tier (`RecentRenditions`), the
/// disk tier (`DerivativeCache`, with its quota and eviction), or made by Services/Media: stills
/// on the render pool under the time limit, transcodes as child processes in their own slots. The
/// store also remembers originals' orientations (`OriginalOrientations`), on which the size of
/// every image request depends.
///
/// Not an actor: a cached small still is read on the caller's thread, without a hop to an
/// executor and back; the disk tier's actor is entered only to make a file or keep it while used.
final class RenditionStore: Sendable {
    /// Stills at most this long are read on the caller's thread (a read from the page cache is
    /// shorter than a wait in the pool's queue behind renderings); longer ones on the pool.
    static let readInPlaceBytes = 256 << 10

    /// Where originals are (`originalStore`) and the disk tier's folder.
    private let catalog: Catalog
    private let disk: DerivativeCache
    private let memory: RecentRenditions
    private let orientations = OriginalOrientations()
    private let pool: BlockingWorkPool
    private let timeLimit: Duration
    private let logger: Logger

    /// A store keeping at most `quota` bytes on disk in `catalog.derived` and `memoryBytes` of
    /// small stills in memory, making renditions on `pool`, each stopped after `timeLimit`. With
    /// `shared`, the disk tier is a cache of that store (`DerivativeCache`).
    init(catalog: Catalog, quota: Int64, pool: BlockingWorkPool, timeLimit: Duration, memoryBytes: Int = 16 << 20,
         shared: SharedDerivatives? = nil, claims: any DerivativeClaims = InProcessDerivativeClaims(), logger: Logger) {
        self.catalog = catalog
        disk = DerivativeCache(folder: catalog.derived, quota: quota, pool: pool, shared: shared, claims: claims)
        memory = RecentRenditions(maximumBytes: memoryBytes)
        self.pool = pool
        self.timeLimit = timeLimit
        self.logger = logger
    }

    /// Bytes the disk tier's files take.
    var size: Int64 {
        get async { await disk.size }
    }

    /// The store of derived files every picker shares, when there is one.
    var shared: SharedDerivatives? { disk.shared }

    /// Who makes a derivative the shared store lacks (`DerivativeClaims`).
    var claims: any DerivativeClaims { disk.claims }

    /// Uploads the renditions made here to the shared store as they are made, until cancelled
    /// (returns at once without one).
    func uploadToSharedStore() async {
        await disk.shared?.uploadPending(from: disk)
    }

    /// Where the rendition `key` is kept on disk, made or not.
    func url(of key: RenditionKey) -> URL {
        disk.url(named: key.fileName)
    }

    /// The EXIF orientation of the asset's original; nil when it has none.
    func orientation(of asset: AssetRecord) -> Int? {
        orientations.orientation(of: asset)
    }

    // MARK: - Stills

    /// A rendition of the asset's (local) still at a target size.
    func image(of asset: AssetRecord, width: Int, height: Int, mode: ImageContentMode, quality: Int) async throws -> Rendition {
        try await still(RenditionKey(contentHash: asset.contentHash, kind: .image(width: width, height: height, mode: mode, quality: quality)),
                        of: asset)
    }

    /// A still's thumbnail for the owner, or a movie's poster frame, at most `side` pixels a side.
    func ownerThumbnail(of asset: AssetRecord, side: Int) async throws -> Rendition {
        try await still(.ownerThumbnail(of: asset, side: side), of: asset)
    }

    /// The owner's thumbnail of a just-stored image (what `ownerThumbnail(of:side:)` gives at
    /// `RenditionKey.ownerThumbnailSide`), made on the calling pool thread unless cached: the
    /// import's proof that the image decodes. `contents`, the file's bytes when the import holds
    /// them, are decoded instead of the file. Returns the bytes it added to the disk tier, for the
    /// caller to count (`counted(madeElsewhere:)`) once its pool job is done.
    func makeOwnerThumbnail(ofStored stored: URL, contents: Data?, contentHash: String) throws -> Int64 {
        let side = RenditionKey.ownerThumbnailSide
        let kind = RenditionKey.Kind.image(width: side, height: side, mode: .fit, quality: RenditionKey.ownerThumbnailQuality)
        let url = url(of: RenditionKey(contentHash: contentHash, kind: kind))
        guard !FileManager.default.fileExists(atPath: url.path) else { return 0 }
        let timeLimit = self.timeLimit
        let size = try DerivativeCache.makeBlocking(url) { destination in
            try Self.makeStill(kind, of: stored, contents: contents, timeLimit: timeLimit, to: destination)
        }
        disk.shared?.upload(url.lastPathComponent)
        return size
    }

    /// Counts into the quota the bytes `makeOwnerThumbnail` added, evicting if over it.
    func counted(madeElsewhere bytes: Int64) async {
        await disk.counted(madeElsewhere: bytes)
    }

    /// The still `key` of the asset: from memory, read in place from disk, or made on the pool and
    /// read back. Two requests for a still not made yet share one making of it.
    private func still(_ key: RenditionKey, of asset: AssetRecord) async throws -> Rendition {
        let name = key.fileName
        if let cached = cachedStill(named: name) { return cached }
        let kind = key.kind
        let timeLimit = self.timeLimit
        do {
            return try await disk.withFile(named: name, from: asset.original, in: catalog.originalStore) { original, destination in
                try Self.makeStill(kind, of: original, contents: nil, timeLimit: timeLimit, to: destination)
            } _: { try await self.read($0) }
        } catch let error as MediaError {
            guard case .poster = kind else { throw error.during(.renderImage) }
            throw error.during(.makePosterFrame)
        }
    }

    /// A cached still small enough to read in place, without the disk tier's actor; nil when it
    /// must be made, or read through the actor. One read from disk keeps it in memory.
    private func cachedStill(named name: String) -> Rendition? {
        if let recent = memory.rendition(name) { return recent }
        guard let data = disk.cachedBytes(named: name, maximumBytes: Self.readInPlaceBytes) else { return nil }
        let rendition = Rendition(data, of: disk.url(named: name))
        memory.keep(rendition, for: name)
        return rendition
    }

    /// A still read back from disk: in place when small, on the pool otherwise.
    private func read(_ url: URL) async throws -> Rendition {
        // stat(2) directly: URL.resourceValues does far more than a cached thumbnail needs.
        var status = stat()
        if stat(url.path, &status) == 0, status.st_size <= Self.readInPlaceBytes { return Rendition(try Data(contentsOf: url), of: url) }
        return try await pool.run { Rendition(try Data(contentsOf: url), of: url) }
    }

    /// Makes the still `kind` of `original` (decoding `contents`, its bytes, when given) at
    /// `destination`; blocking, on a pool thread: decoding a picture is CPU work.
    private static func makeStill(_ kind: RenditionKey.Kind, of original: URL, contents: Data?, timeLimit: Duration, to destination: URL) throws {
        switch kind {
        case let .image(width, height, mode, quality):
            let image = try ImageRenderer.thumbnail(of: original, contents: contents, targetWidth: width, targetHeight: height,
                                                    contentMode: mode == .fill ? .fill : .fit, quality: quality, timeLimit: timeLimit)
            try DerivativeCache.write(image.data, to: destination)
        case let .poster(side):
            try DerivativeCache.write(PosterFrame.jpeg(of: original, side: side).data, to: destination)
        case .movie, .compatibleJPEG, .stripped:
            preconditionFailure("\(kind) is not a still")
        }
    }

    // MARK: - Movies and delivered files

    /// The `derivative` of the asset's (local) original, made if it is not cached yet. While it is
    /// made (or waits for a transcode slot, or for another request making it), `progress` hears
    /// how far it has got at least every `TranscodeProgressBoard.heartbeat`. The file is not kept
    /// from eviction after this returns: open it at once.
    func movie(of asset: AssetRecord, _ derivative: VideoDerivative,
               progress: @escaping @Sendable (TranscodeProgress) -> Void) async throws -> URL {
        let name = RenditionKey(contentHash: asset.contentHash, kind: .movie(derivative)).fileName
        let store = catalog.originalStore
        let logger = self.logger
        let pool = self.pool
        let board = TranscodeProgressBoard.shared
        do {
            return try await board.reporting(name, waiting: TranscodeProgress(completed: 0, total: asset.duration ?? 0), to: progress) { report in
                try await disk.file(named: name) { destination in
                    defer { board.remove(name) }
                    let started = ContinuousClock.now
                    try await store.withLocalFile(asset.original) { original in
                        try await VideoTranscoder.transcode(original, to: destination, as: derivative, blocking: pool) { encoded, duration in
                            report(TranscodeProgress(completed: encoded, total: duration))
                        }
                    }
                    let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? nil
                    logger.info("transcoded", metadata: ["asset": "\(asset.identifier)", "derivative": "\(derivative.rawValue)",
                                                         "elapsed": "\(ContinuousClock.now - started)", "bytes": "\(size ?? -1)"])
                }
            }
        } catch let error as MediaError {
            throw error.during(.prepareMovie)
        }
    }

    /// Runs `use` with the file holding the asset (with its original local) as `representation`,
    /// without the metadata `removal` removes (`Representations.removal(_:for:)` decides what is
    /// left to remove): the original, its compatible version (an H.264 movie, a JPEG), or a copy of
    /// either without the metadata. Derived stills stay on disk while `use` runs. Transcoding a
    /// movie reports `progress`.
    func withDeliverableFile<Result: Sendable>(
        for asset: AssetRecord, as representation: UTType, removing removal: MetadataRemoval,
        progress: @escaping @Sendable (TranscodeProgress) -> Void = { _ in },
        _ use: @escaping @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let store = catalog.originalStore
        let timeLimit = self.timeLimit
        let removal = Representations.removal(removal, for: asset)
        // The last step: without the metadata the delivery removes, or the file as it is.
        let strippedStill: @Sendable (RenditionKey.Source) -> String = { source in
            RenditionKey(contentHash: asset.contentHash,
                         kind: .stripped(source, removal, fileExtension: representation.preferredFilenameExtension ?? "bin")).fileName
        }
        let stripped: @Sendable (URL, RenditionKey.Source) async throws -> Result = { [self] file, source in
            guard removal != .none else { return try await use(file) }
            if asset.mediaType == .video {
                return try await use(try await movie(without: removal, of: asset, from: file, source: source))
            }
            return try await disk.withFile(named: strippedStill(source)) { destination in
                try MetadataStripper.strip(removing: removal, from: file, to: destination)
            } _: { try await use($0) }
        }
        do {
            if representation == .mpeg4Movie, Representations.hasCompatibleMovie(asset) {
                return try await stripped(try await movie(of: asset, .compatible, progress: progress), .compatible)
            }
            guard representation == .jpeg, asset.type != .jpeg else {
                guard removal != .none, asset.mediaType != .video else {
                    return try await store.withLocalFile(asset.original) { try await stripped($0, .original) }
                }
                // A still without metadata: the original is fetched only when the copy must be made.
                return try await disk.withFile(named: strippedStill(.original), from: asset.original, in: store) { original, destination in
                    try MetadataStripper.strip(removing: removal, from: original, to: destination)
                } _: { try await use($0) }
            }
            let name = RenditionKey(contentHash: asset.contentHash, kind: .compatibleJPEG).fileName
            return try await disk.withFile(named: name, from: asset.original, in: store) { original, destination in
                try ImageRenderer.compatibleJPEG(of: original, to: destination, timeLimit: timeLimit)
            } _: { try await stripped($0, .compatible) }
        } catch let error as MediaError {
            throw error.during(.prepareAsset)
        }
    }

    /// Whether `withDeliverableFile` would deliver the original itself, unchanged (a load can then
    /// stream it from wherever it is kept, `AssetStreamer.streamOriginal`).
    static func deliversOriginal(_ asset: AssetRecord, as representation: UTType, removing removal: MetadataRemoval) -> Bool {
        Representations.removal(removal, for: asset) == .none && !(representation == .mpeg4Movie && Representations.hasCompatibleMovie(asset))
            && !(representation == .jpeg && asset.type != .jpeg)
    }

    /// A movie's fast or medium version (`movie(of:_:progress:)`) without what `removal` removes
    /// (an app's video request without location consent). Not kept from eviction after this returns.
    func movie(of asset: AssetRecord, _ derivative: VideoDerivative, removing removal: MetadataRemoval,
               progress: @escaping @Sendable (TranscodeProgress) -> Void) async throws -> URL {
        let file = try await movie(of: asset, derivative, progress: progress)
        let removal = Representations.removal(removal, for: asset)
        guard removal != .none else { return file }
        let source: RenditionKey.Source = switch derivative {
        case .fast: .fast
        case .medium: .medium
        case .compatible: .compatible
        }
        return try await movie(without: removal, of: asset, from: file, source: source)
    }

    /// `file` (the original or a version of the movie, as `source` says) remuxed without what
    /// `removal` removes. Not kept from eviction after this returns, like `movie(of:_:progress:)`.
    private func movie(without removal: MetadataRemoval, of asset: AssetRecord, from file: URL,
                       source: RenditionKey.Source) async throws -> URL {
        let fileExtension = asset.type == .quickTimeMovie && source == .original ? "mov" : "mp4"
        let name = RenditionKey(contentHash: asset.contentHash, kind: .stripped(source, removal, fileExtension: fileExtension)).fileName
        let pool = self.pool
        do {
            return try await disk.file(named: name) { destination in
                try await MovieMetadataStripper.strip(removing: removal, from: file, to: destination, blocking: pool)
            }
        } catch let error as MediaError {
            throw error.during(.prepareMovie)
        }
    }
}

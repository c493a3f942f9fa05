import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media

/// What the owner's surfaces ask of the library: thumbnails and details (the owner sees the whole
/// library; every reply is bounded), imports, deletion, and moving originals to the cloud tier and back.
struct OwnerFeature: Sendable {
    let catalog: Catalog
    let renditions: RenditionStore
    let cloud: CloudTier
    let importer: LibraryImporter
    let watchedImports: WatchedImportProgress

    func register(in table: inout OperationTable) {
        table.on(Operations.thumbnail) { _, body, context in try await thumbnail(body, &context) }
        table.on(Operations.assetDetails) { _, body, _ in try await assetDetails(body) }
        table.on(Operations.mediaRange) { _, body, context in try await mediaRange(body, &context) }
        table.on(Operations.importLibrary) { _, body, context in try await importLibrary(body, context) }
        table.later(Operations.watchedImports) { [watchedImports] _, _, _, reply in watchedImports.follow(reply) }
        table.on(Operations.ownerDelete) { _, body, _ in try await ownerDelete(body) }
        table.on(Operations.offload) { _, body, _ in try await cloud.offload(try await ownedAsset(body.asset)); return Empty() }
        table.on(Operations.restore) { _, body, _ in try await cloud.restore(try await ownedAsset(body.asset)); return Empty() }
    }

    func thumbnail(_ body: ThumbnailRequest, _ context: inout RequestContext) async throws -> ThumbnailInfo {
        let side = min(max(body.side ?? ThumbnailRequest.defaultSide, 16), ThumbnailRequest.maximumSide)
        guard let stored = try await catalog.asset(body.asset) else {
            throw LightboxError(.notFound, "No asset \(body.asset) in the library.", details: ["asset": body.asset])
        }
        // The owner sees the current version: an app's edit when there is one.
        let asset = try await catalog.version(.current, of: stored)
        // The owner's thumbnails come from wherever the original is, the cloud tier included, and
        // are kept like any other derivative: the owner's grid should not wait for downloads twice.
        let rendered = try await renditions.ownerThumbnail(of: asset, side: side)
        let info = ThumbnailInfo(asset: asset.identifier, type: rendered.type ?? .jpeg, pixelWidth: rendered.width,
                                 pixelHeight: rendered.height, etag: "\(asset.contentHash.prefix(24))-\(side)")
        context.replyAttachments = [rendered.data]
        return info
    }

    func assetDetails(_ body: AssetRequest) async throws -> AssetDetails {
        let identifier = body.asset
        guard let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) in the library.", details: ["asset": identifier])
        }
        return AssetDetails(summary: asset.summary, importedAt: asset.importedAt, properties: asset.imageProperties,
                            edit: try await catalog.edit(of: identifier)?.ownerView)
    }

    /// A byte range of the movie a preview plays (a video's or a Live Photo's, as H.264 made once
    /// and cached) or of the original (an animated image), read from wherever the original is.
    func mediaRange(_ body: MediaRangeRequest, _ context: inout RequestContext) async throws -> MediaRangeInfo {
        let offset = body.offset ?? 0
        let length = body.length ?? MediaRangeRequest.maximumLength
        guard offset >= 0, (0...MediaRangeRequest.maximumLength).contains(length) else {
            throw LightboxError(.badRequest, "The offset must be 0 or more and the length 0 to \(MediaRangeRequest.maximumLength) bytes.")
        }
        let stored = try await catalog.version(.current, of: try await ownedAsset(body.asset))
        guard let asset = try await cloud.localAsset(stored, networkAccessAllowed: true, progress: { _ in }) else {
            throw LightboxError(.inCloud, "\(body.asset) is in the cloud tier and could not be brought back.")
        }
        let (info, bytes): (MediaRangeInfo, Data)
        switch body.part {
        case .original:
            (info, bytes) = try await catalog.originalStore.withLocalFile(asset.original) { file in
                try Self.range(of: file, offset: offset, length: length, asset: asset.identifier, type: asset.type)
            }
        case .movie:
            guard let movie = asset.mediaType == .video ? asset : asset.pairedMovie else {
                throw LightboxError(.badRequest, "\(body.asset) has no movie; ask for its original.", details: ["asset": body.asset])
            }
            let file = try await renditions.movie(of: movie, .medium) { _ in }
            (info, bytes) = try Self.range(of: file, offset: offset, length: length, asset: asset.identifier, type: .mpeg4Movie)
        }
        context.replyAttachments = [bytes]
        return info
    }

    /// `length` bytes of `file` from `offset`, as the answer's attachment.
    private static func range(of file: URL, offset: Int64, length: Int, asset: String, type: UTType) throws -> (MediaRangeInfo, Data) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let total = Int64(try handle.seekToEnd())
        guard offset <= total else {
            throw LightboxError(.badRequest, "The offset \(offset) is past the end of the file (\(total) bytes).", details: ["totalBytes": "\(total)"])
        }
        try handle.seek(toOffset: UInt64(offset))
        let bytes = length == 0 ? Data() : try handle.read(upToCount: length) ?? Data()
        return (MediaRangeInfo(asset: asset, type: type, totalBytes: total, offset: offset, length: bytes.count), bytes)
    }

    /// An asset of the library, for the owner; anything else is `notFound`.
    func ownedAsset(_ identifier: String) async throws -> AssetRecord {
        guard let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) in the library.")
        }
        return asset
    }

    /// Deletes every asset named, or none: one that is not in the library refuses the request.
    func ownerDelete(_ body: DeleteAssetsRequest) async throws -> DeleteAssetsResponse {
        let assets = try body.validatedAssets()
        let found = try await catalog.assets(assets)
        if let missing = assets.first(where: { found[$0] == nil }) {
            throw LightboxError(.notFound, "No asset \(missing) in the library; nothing was deleted.", details: ["asset": missing])
        }
        return DeleteAssetsResponse(deleted: try await catalog.remove(assets))
    }

    /// The least time between two import progress replies. A progress bar needs a few a second;
    /// one per file (small photos import many a second) kept the picker and its client busy with
    /// replies no one could read that fast.
    static let importProgressInterval: Duration = .milliseconds(100)

    func importLibrary(_ body: ImportRequest, _ context: RequestContext) async throws -> ImportSummary {
        let folder = try LibraryImporter.validatedFolder(body.path)
        let clock = ContinuousClock()
        var lastSent: ContinuousClock.Instant?
        return try await importer.importFolder(folder) { step in
            let now = clock.now
            // The first file, then at most one per `importProgressInterval`, and always the last.
            guard step.completed == step.total || lastSent.map({ now - $0 >= Self.importProgressInterval }) ?? true else { return }
            lastSent = now
            context.progress(step)
        }
    }
}

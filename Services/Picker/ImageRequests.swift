import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// PHImageManager for apps with library access: thumbnails and full images in three delivery
/// modes, cloud-only originals, cancellation; and movies as files.
extension PickerService {
    /// Degraded results of opportunistic requests and fast results are at most this many pixels a side.
    static let degradedSide = 128
    static let fastSide = 256

    func requestImage(_ app: AppID, _ body: ImageRequest, _ context: inout RequestContext, access: LibraryAccess) async throws -> ImageResultInfo {
        let asset = try await access.visibleAsset(body.asset, app: app, context: context)
        guard asset.mediaType == .image else {
            throw LightboxError(.badRequest, "\(body.asset) is a movie; ask with video.request.")
        }
        if let width = body.targetWidth, let height = body.targetHeight, width <= 0 || height <= 0 || width > 20_000 || height > 20_000 {
            throw LightboxError(.badRequest, "The target size must be 1 to 20000 pixels a side.")
        }
        context.audit(.requested, assetCount: 1, asset: asset.identifier)
        let registry = imageRequests
        let id = context.id
        let responder = context.responder
        registry.begin(id, of: app.rawValue)
        let isCancelled: @Sendable () async -> Bool = { registry.isCancelled(id, of: app.rawValue) }
        defer { registry.end(id, of: app.rawValue) }

        let cancelled = ImageResultInfo(isCancelled: true)
        let local: AssetRecord?
        do {
            local = try await localAsset(asset, networkAccessAllowed: body.isNetworkAccessAllowed ?? false,
                                         progress: { responder.progress($0) }, isCancelled: isCancelled)
        } catch is CancellationError {
            return cancelled
        }
        guard let local else {
            // In the cloud and no network allowed: no image and no error, as PhotoKit says it.
            return ImageResultInfo(isInCloud: true)
        }
        // Upright size of the original: no request renders more pixels than it has (see `bounded`).
        let full = ThumbnailSize.upright(width: local.pixelWidth ?? Self.fastSide, height: local.pixelHeight ?? Self.fastSide,
                                         orientation: orientations.orientation(of: local))
        let mode = body.contentMode ?? .fit
        let (width, height) = ThumbnailSize.bounded(width: body.targetWidth ?? full.width, height: body.targetHeight ?? full.height,
                                                    contentMode: mode == .fill ? .fill : .fit,
                                                    imageWidth: full.width, imageHeight: full.height)
        switch body.deliveryMode ?? .opportunistic {
        case .opportunistic:
            let degraded = try await render(local, width: min(width, Self.degradedSide), height: min(height, Self.degradedSide), mode: mode, quality: 60)
            responder.send(.event, degraded.info(isDegraded: true), attachments: [degraded.data])
            if await isCancelled() { return cancelled }
            let final = try await render(local, width: width, height: height, mode: mode, quality: 90)
            if await isCancelled() { return cancelled }
            context.replyAttachments = [final.data]
            return final.info(isDegraded: false)
        case .highQualityFormat:
            let final = try await render(local, width: width, height: height, mode: mode, quality: 90)
            if await isCancelled() { return cancelled }
            context.replyAttachments = [final.data]
            return final.info(isDegraded: false)
        case .fastFormat:
            let fast = try await render(local, width: min(width, Self.fastSide), height: min(height, Self.fastSide), mode: mode, quality: 70)
            context.replyAttachments = [fast.data]
            return fast.info(isDegraded: false)
        }
    }

    func cancelImage(_ app: AppID, _ body: CancelImageRequest) throws -> Empty {
        guard imageRequests.cancel(body.request, of: app.rawValue) else {
            throw LightboxError(.notFound, "No image request \(body.request) is running; it may have finished.")
        }
        return Empty()
    }

    func requestVideo(_ app: AppID, _ body: VideoRequest, _ context: inout RequestContext, access: LibraryAccess) async throws -> Streamed<VideoResultInfo> {
        let asset = try await access.visibleAsset(body.asset, app: app, context: context)
        let responder = context.responder
        guard asset.mediaType == .video else {
            throw LightboxError(.badRequest, "\(body.asset) is a photo; ask with image.request.")
        }
        guard let local = try await localAsset(asset, networkAccessAllowed: body.isNetworkAccessAllowed ?? false,
                                               progress: { responder.progress($0) }) else {
            context.audit(.inCloud, assetCount: 1, asset: asset.identifier)
            return .reply(VideoResultInfo(isInCloud: true, deliveredQuality: nil))
        }
        // High quality (and automatic, as PhotoKit gives it for local movies) is the original.
        let derivative: VideoDerivative? = switch body.deliveryMode ?? .automatic {
        case .fastFormat: .fast
        case .mediumQualityFormat: .medium
        case .automatic, .highQualityFormat: nil
        }
        let file: URL, type: UTType, quality: String
        if let derivative {
            file = try await movieDerivative(of: local, derivative) { responder.progress($0) }
            (type, quality) = (.mpeg4Movie, derivative.rawValue)
        } else {
            (file, type, quality) = (catalog.originalURL(of: local), local.type, "original")
        }
        context.event(VideoResultInfo(isInCloud: false, deliveredQuality: quality, type: type))
        let outcome = try await stream(local, file: file, as: type, credit: body.credit, chunkSize: body.chunkSize, app: app,
                                       responder: responder)
        context.audit(AuditFacts(outcome, asset: local.identifier))
        return .stream(outcome)
    }

    struct Rendered: Sendable {
        var data: Data
        var type: UTType?
        var width: Int?
        var height: Int?

        func info(isDegraded: Bool) -> ImageResultInfo {
            ImageResultInfo(isDegraded: isDegraded, type: type, pixelWidth: width, pixelHeight: height)
        }
    }

    /// A rendition of the image at a target size, cached by content, size, mode and quality, made
    /// on the render pool under the picker's time limit.
    func render(_ asset: AssetRecord, width: Int, height: Int, mode: ImageContentMode, quality: Int) async throws -> Rendered {
        if let cached = cachedRendition(hash: asset.contentHash, kind: Self.renditionKind(width: width, height: height, mode: mode, quality: quality)) {
            return cached
        }
        return try await rendition(asset, width: width, height: height, mode: mode, quality: quality) { try await readRendition($0) }
    }

    /// A cached rendition small enough to read in place, without the cache actor; nil when it must
    /// be made, or read through `DerivativeCache.withFile`.
    func cachedRendition(hash: String, kind: String) -> Rendered? {
        let key = "\(hash).\(kind)"
        if let recent = recentRenditions.rendition(key) { return recent }
        guard let data = derivatives.cachedBytes(hash: hash, kind: kind, maximumBytes: Self.readInPlaceBytes) else { return nil }
        let rendered = Self.rendered(data, of: derivatives.url(hash: hash, kind: kind))
        recentRenditions.keep(rendered, for: key)
        return rendered
    }

    /// Runs `use` with the file of the rendition `render` returns, made first when it is not cached.
    func rendition<Result: Sendable>(
        _ asset: AssetRecord, width: Int, height: Int, mode: ImageContentMode, quality: Int, _ use: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let original = catalog.originalURL(of: asset)
        let timeLimit = configuration.renderTimeLimit
        do {
            return try await derivatives.withFile(hash: asset.contentHash, kind: Self.renditionKind(width: width, height: height, mode: mode, quality: quality)) { destination in
                try Self.renderRendition(of: original, width: width, height: height, mode: mode, quality: quality, timeLimit: timeLimit,
                                         to: destination)
            } _: { try await use($0) }
        } catch let error as MediaError {
            throw error.during(.renderImage)
        }
    }

    /// The derivative cache's name for a rendition.
    static func renditionKind(width: Int, height: Int, mode: ImageContentMode, quality: Int) -> String {
        "thumb-\(width)x\(height)-\(mode)-q\(quality)"
    }

    /// Renders a rendition of `original` into `destination` (blocking: on a pool thread).
    static func renderRendition(of original: URL, contents: Data? = nil, width: Int, height: Int, mode: ImageContentMode, quality: Int,
                                timeLimit: Duration, to destination: URL) throws {
        let image = try ImageRenderer.thumbnail(of: original, contents: contents, targetWidth: width, targetHeight: height,
                                                contentMode: mode == .fill ? .fill : .fit, quality: quality, timeLimit: timeLimit)
        try DerivativeCache.write(image.data, to: destination)
    }

    /// The owner's thumbnail of a just-stored image (what `posterOrThumbnail(of:side:)` gives),
    /// made on the calling pool thread unless cached: the import's proof that the image decodes.
    /// `contents`, the file's bytes when the import holds them, are decoded instead of the file.
    /// Returns the bytes it added to the cache (counted by the caller, `DerivativeCache.counted`).
    static func importThumbnail(of stored: URL, contents: Data?, contentHash: String, side: Int, in derivatives: DerivativeCache,
                                timeLimit: Duration) throws -> Int64 {
        let quality = ownerThumbnailQuality
        let url = derivatives.url(hash: contentHash, kind: renditionKind(width: side, height: side, mode: .fit, quality: quality))
        guard !FileManager.default.fileExists(atPath: url.path) else { return 0 }
        return try DerivativeCache.makeBlocking(url) { destination in
            try renderRendition(of: stored, contents: contents, width: side, height: side, mode: .fit, quality: quality, timeLimit: timeLimit,
                                to: destination)
        }
    }

    /// A rendition's bytes and size, read back from the cache: a thumbnail of a few KB in place (a
    /// read from the page cache, shorter than a wait in the pool's queue behind renderings), a
    /// larger one on the render pool.
    func readRendition(_ url: URL) async throws -> Rendered {
        // stat(2) directly: URL.resourceValues does far more than a cached thumbnail needs.
        var status = stat()
        if stat(url.path, &status) == 0, status.st_size <= Self.readInPlaceBytes { return try Self.rendered(at: url) }
        return try await renderPool.run { try Self.rendered(at: url) }
    }

    static let readInPlaceBytes = 256 << 10

    private static func rendered(at url: URL) throws -> Rendered {
        rendered(try Data(contentsOf: url), of: url)
    }

    static func rendered(_ data: Data, of url: URL) -> Rendered {
        let metadata = try? MetadataReader.read(fileAt: url, contents: data)
        return Rendered(data: data, type: metadata?.type, width: metadata?.pixelWidth, height: metadata?.pixelHeight)
    }
}

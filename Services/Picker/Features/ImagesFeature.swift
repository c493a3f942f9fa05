import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media

/// PHImageManager's images for apps with library access: thumbnails and full images in three
/// delivery modes, cloud-only originals, cancellation. Renditions come from the `RenditionStore`.
struct ImagesFeature: Sendable {
    let access: LibraryAccess
    let renditions: RenditionStore
    let cloud: CloudTier
    let imageRequests: ImageRequestRegistry

    func register(in table: inout OperationTable) {
        table.on(Operations.requestImage) { try await requestImage($0, $1, &$2) }
        table.on(Operations.cancelImage) { app, body, _ in try cancelImage(app, body) }
    }

    /// Degraded results of opportunistic requests and fast results are at most this many pixels a side.
    static let degradedSide = 128
    static let fastSide = 256

    func requestImage(_ app: AppID, _ body: ImageRequest, _ context: inout RequestContext) async throws -> ImageResultInfo {
        let visible = try await access.visibleAsset(body.asset, app: app, context: context)
        // The current version is an app's edit when there is one (`version: original` asks past it).
        let asset = try await access.catalog.version(body.version ?? .current, of: visible)
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
            local = try await cloud.localAsset(asset, networkAccessAllowed: body.isNetworkAccessAllowed ?? false,
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
                                         orientation: renditions.orientation(of: local))
        let mode = body.contentMode ?? .fit
        let (width, height) = ThumbnailSize.bounded(width: body.targetWidth ?? full.width, height: body.targetHeight ?? full.height,
                                                    contentMode: mode == .fill ? .fill : .fit,
                                                    imageWidth: full.width, imageHeight: full.height)
        switch body.deliveryMode ?? .opportunistic {
        case .opportunistic:
            let degraded = try await renditions.image(of: local, width: min(width, Self.degradedSide), height: min(height, Self.degradedSide), mode: mode, quality: 60)
            responder.send(.event, degraded.info(isDegraded: true), attachments: [degraded.data])
            if await isCancelled() { return cancelled }
            let final = try await renditions.image(of: local, width: width, height: height, mode: mode, quality: 90)
            if await isCancelled() { return cancelled }
            context.replyAttachments = [final.data]
            return final.info(isDegraded: false)
        case .highQualityFormat:
            let final = try await renditions.image(of: local, width: width, height: height, mode: mode, quality: 90)
            if await isCancelled() { return cancelled }
            context.replyAttachments = [final.data]
            return final.info(isDegraded: false)
        case .fastFormat:
            let fast = try await renditions.image(of: local, width: min(width, Self.fastSide), height: min(height, Self.fastSide), mode: mode, quality: 70)
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
}

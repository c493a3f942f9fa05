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

    func requestImage(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let body = try request.body(ImageRequest.self)
        let asset = try await visibleAsset(body.asset, app: app, request: request)
        guard asset.mediaType == .image else {
            throw LightboxError(.badRequest, "\(body.asset) is a movie; ask with video.request.")
        }
        if let width = body.targetWidth, let height = body.targetHeight, width <= 0 || height <= 0 || width > 20_000 || height > 20_000 {
            throw LightboxError(.badRequest, "The target size must be 1 to 20000 pixels a side.")
        }
        auditReporter.record(app: app, operation: .image, assetCount: 1, outcome: .requested, asset: asset.identifier)
        imageRequests.begin(request.id, of: app)
        let registry = imageRequests
        let id = request.id
        let isCancelled: @Sendable () async -> Bool = { registry.isCancelled(id, of: app) }
        defer { registry.end(id, of: app) }

        let cancelled = ImageResultInfo(isCancelled: true)
        let local: AssetRecord?
        do {
            local = try await localAsset(asset, networkAccessAllowed: body.isNetworkAccessAllowed ?? false,
                                         progress: { responder.progress($0) }, isCancelled: isCancelled)
        } catch is CancellationError {
            responder.succeed(cancelled)
            return
        }
        guard let local else {
            // In the cloud and no network allowed: no image and no error, as PhotoKit says it.
            responder.succeed(ImageResultInfo(isInCloud: true))
            return
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
            if await isCancelled() { return responder.succeed(cancelled) }
            let final = try await renditions.image(of: local, width: width, height: height, mode: mode, quality: 90)
            if await isCancelled() { return responder.succeed(cancelled) }
            responder.send(.ok, final.info(isDegraded: false), attachments: [final.data])
        case .highQualityFormat:
            let final = try await renditions.image(of: local, width: width, height: height, mode: mode, quality: 90)
            if await isCancelled() { return responder.succeed(cancelled) }
            responder.send(.ok, final.info(isDegraded: false), attachments: [final.data])
        case .fastFormat:
            let fast = try await renditions.image(of: local, width: min(width, Self.fastSide), height: min(height, Self.fastSide), mode: mode, quality: 70)
            responder.send(.ok, fast.info(isDegraded: false), attachments: [fast.data])
        }
    }

    func cancelImage(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let target = try request.body(CancelImageRequest.self).request
        guard imageRequests.cancel(target, of: app) else {
            throw LightboxError(.notFound, "No image request \(target) is running; it may have finished.")
        }
        responder.succeed(Empty())
    }

    func requestVideo(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let body = try request.body(VideoRequest.self)
        let asset = try await visibleAsset(body.asset, app: app, request: request)
        guard asset.mediaType == .video else {
            throw LightboxError(.badRequest, "\(body.asset) is a photo; ask with image.request.")
        }
        guard let local = try await localAsset(asset, networkAccessAllowed: body.isNetworkAccessAllowed ?? false,
                                               progress: { responder.progress($0) }) else {
            auditReporter.record(app: app, operation: .video, assetCount: 1, outcome: .inCloud, asset: asset.identifier)
            responder.succeed(VideoResultInfo(isInCloud: true, deliveredQuality: nil))
            return
        }
        // High quality (and automatic, as PhotoKit gives it for local movies) is the original.
        let derivative: VideoDerivative? = switch body.deliveryMode ?? .automatic {
        case .fastFormat: .fast
        case .mediumQualityFormat: .medium
        case .automatic, .highQualityFormat: nil
        }
        guard let derivative else {
            responder.event(VideoResultInfo(isInCloud: false, deliveredQuality: "original", type: local.type))
            return try await stream(local, file: catalog.originalURL(of: local), as: local.type, credit: body.credit, chunkSize: body.chunkSize,
                              app: app, operation: .video, responder: responder)
        }
        let file = try await renditions.movie(of: local, derivative) { responder.progress($0) }
        responder.event(VideoResultInfo(isInCloud: false, deliveredQuality: derivative.rawValue, type: .mpeg4Movie))
        try await stream(local, file: file, as: .mpeg4Movie, credit: body.credit, chunkSize: body.chunkSize, app: app, operation: .video,
                   responder: responder)
    }

    func imageProperties(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let asset = try await visibleAsset(try request.body(AssetRequest.self).asset, app: app, request: request)
        auditReporter.record(app: app, operation: .properties, assetCount: 1, outcome: .delivered, asset: asset.identifier)
        responder.succeed(ImagePropertiesResponse(asset: asset.identifier, properties: asset.imageProperties))
    }

    /// An asset the app may see through its library access; anything else reads as not found.
    func visibleAsset(_ identifier: String, app: String, request: IncomingRequest) async throws -> AssetRecord {
        let decision = try await decide(.read, for: app, on: request, assetCount: 1)
        guard try await !visible([identifier], for: app, in: decision).isEmpty, let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) is visible to this app.")
        }
        return asset
    }
}

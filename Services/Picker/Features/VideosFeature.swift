import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media

/// PHImageManager's movies for apps with library access: the original, or a fast or medium H.264
/// version made once and cached (`RenditionStore`), as a credit stream.
struct VideosFeature: Sendable {
    let access: LibraryAccess
    let renditions: RenditionStore
    let cloud: CloudTier
    let catalog: Catalog
    let streamer: AssetStreamer

    func register(in table: inout OperationTable) {
        table.streaming(Operations.requestVideo) { try await requestVideo($0, $1, &$2) }
    }

    func requestVideo(_ app: AppID, _ body: VideoRequest, _ context: inout RequestContext) async throws -> Streamed<VideoResultInfo> {
        let (visible, removal) = try await access.visible(body.asset, app: app, context: context)
        let asset = try await catalog.version(body.version ?? .current, of: visible)
        let responder = context.responder
        guard asset.mediaType == .video else {
            throw LightboxError(.badRequest, "\(body.asset) is a photo; ask with image.request.")
        }
        guard let local = try await cloud.localAsset(asset, networkAccessAllowed: body.isNetworkAccessAllowed ?? false,
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
        let outcome: StreamOutcome
        if let derivative {
            let file = try await renditions.movie(of: local, derivative, removing: removal) { responder.progress($0) }
            context.event(VideoResultInfo(isInCloud: false, deliveredQuality: derivative.rawValue, type: .mpeg4Movie))
            outcome = try await streamer.stream(local, file: file, as: .mpeg4Movie, credit: body.credit, chunkSize: body.chunkSize, app: app,
                                                responder: responder)
        } else if RenditionStore.deliversOriginal(local, as: local.type, removing: removal) {
            context.event(VideoResultInfo(isInCloud: false, deliveredQuality: "original", type: local.type))
            outcome = try await streamer.streamOriginal(local, as: local.type, credit: body.credit, chunkSize: body.chunkSize, app: app,
                                                        responder: responder)
        } else {
            // The original's samples in a container without the location the app was not given.
            context.event(VideoResultInfo(isInCloud: false, deliveredQuality: "original", type: local.type))
            outcome = try await renditions.withDeliverableFile(for: local, as: local.type, removing: removal,
                                                               progress: { responder.progress($0) }) { file in
                try await streamer.stream(local, file: file, as: local.type, credit: body.credit, chunkSize: body.chunkSize, app: app,
                                          responder: responder)
            }
        }
        context.audit(AuditFacts(outcome, asset: local.identifier))
        return .stream(outcome)
    }
}

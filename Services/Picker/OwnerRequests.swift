import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// What the owner's surfaces ask of the catalog: pages of assets, thumbnails and details. The
/// owner sees the whole library; every reply is bounded (a page, one thumbnail, one asset).
extension PickerService {
    func thumbnail(_ body: ThumbnailRequest, _ context: inout RequestContext) async throws -> ThumbnailInfo {
        let side = min(max(body.side ?? ThumbnailRequest.defaultSide, 16), ThumbnailRequest.maximumSide)
        guard let asset = try await catalog.asset(body.asset) else {
            throw LightboxError(.notFound, "No asset \(body.asset) in the library.", details: ["asset": body.asset])
        }
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
        return AssetDetails(summary: asset.summary, importedAt: asset.importedAt, properties: asset.imageProperties)
    }
}

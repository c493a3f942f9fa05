import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// What the owner's surfaces ask of the catalog: pages of assets, thumbnails and details. The
/// owner sees the whole library; every reply is bounded (a page, one thumbnail, one asset).
extension PickerService {
    func listAssets(_ request: IncomingRequest, _ responder: Responder) async throws {
        let body = try request.body(ListAssetsRequest.self)
        var filters: [PickerFilter] = []
        if let pick = body.pick {
            guard let session = await sessions.session(pick) else { throw noSuchPick(pick) }
            if let filter = session.configuration.filter { filters.append(filter) }
        }
        if let filter = body.filter { filters.append(filter) }
        let limit = min(max(body.limit ?? ListAssetsRequest.defaultLimit, 1), ListAssetsRequest.maximumLimit)
        let cursor = try body.after.map { text throws(LightboxError) in try LibraryCursor(decoding: text) }
        let page = try await catalog.page(filter: filters.isEmpty ? nil : filters.count == 1 ? filters[0] : .all(filters),
                                          limit: limit, after: cursor)
        responder.succeed(ListAssetsResponse(assets: page.assets, next: page.next?.encoded))
    }

    func thumbnail(_ request: IncomingRequest, _ responder: Responder) async throws {
        let body = try request.body(ThumbnailRequest.self)
        let side = min(max(body.side ?? ThumbnailRequest.defaultSide, 16), ThumbnailRequest.maximumSide)
        guard let asset = try await catalog.asset(body.asset) else {
            throw LightboxError(.notFound, "No asset \(body.asset) in the library.", details: ["asset": body.asset])
        }
        // The owner's thumbnails come from wherever the original is, the cloud tier included, and
        // are kept like any other derivative: the owner's grid should not wait for downloads twice.
        let rendered = try await renditions.ownerThumbnail(of: asset, side: side)
        let info = ThumbnailInfo(asset: asset.identifier, type: rendered.type ?? .jpeg, pixelWidth: rendered.width,
                                 pixelHeight: rendered.height, etag: "\(asset.contentHash.prefix(24))-\(side)")
        responder.send(.ok, info, attachments: [rendered.data])
    }

    func assetDetails(_ request: IncomingRequest, _ responder: Responder) async throws {
        let identifier = try request.body(AssetRequest.self).asset
        guard let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) in the library.", details: ["asset": identifier])
        }
        responder.succeed(AssetDetails(summary: asset.summary, importedAt: asset.importedAt, properties: asset.imageProperties))
    }
}

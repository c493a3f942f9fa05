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
        let rendered = try await posterOrThumbnail(of: asset, side: side)
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

extension PickerService {
    /// A still's thumbnail, or a movie's poster frame, at most `side` pixels a side, cached by content.
    func posterOrThumbnail(of asset: AssetRecord, side: Int) async throws -> Rendered {
        let kind = asset.mediaType == .video ? Self.posterKind(side: side)
            : Self.renditionKind(width: side, height: side, mode: .fit, quality: Self.ownerThumbnailQuality)
        if let cached = cachedRendition(hash: asset.contentHash, kind: kind) { return cached }
        return try await posterOrThumbnail(of: asset, side: side) { try await readRendition($0) }
    }

    /// The derivative cache's name for a movie's poster frame.
    static func posterKind(side: Int) -> String { "poster-\(side)" }

    /// Runs `use` with the file of what `posterOrThumbnail(of:side:)` returns, made first when it is not cached.
    func posterOrThumbnail<Result: Sendable>(of asset: AssetRecord, side: Int, _ use: @Sendable (URL) async throws -> Result) async throws -> Result {
        guard asset.mediaType == .video else {
            return try await rendition(asset, width: side, height: side, mode: .fit, quality: Self.ownerThumbnailQuality, use)
        }
        let original = catalog.originalURL(of: asset)
        do {
            // Decoding a picture is CPU work: it runs on the render pool like every other rendering.
            return try await derivatives.withFile(hash: asset.contentHash, kind: Self.posterKind(side: side)) { destination in
                try DerivativeCache.write(PosterFrame.jpeg(of: original, side: side).data, to: destination)
            } _: { try await use($0) }
        } catch let error as MediaError {
            throw error.during(.makePosterFrame)
        }
    }
}

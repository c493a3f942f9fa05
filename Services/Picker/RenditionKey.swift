import LightboxProtocol
import Media

/// What a rendition is: the content it is made from and what is made of it. Its name, in memory
/// and on disk, is derived here and nowhere else (`fileName`). The names are the ones the
/// derivative cache has always used, so a cache made before stays valid.
struct RenditionKey: Hashable, Sendable {
    /// What is made of the content.
    enum Kind: Hashable, Sendable {
        /// A still at most `width`×`height` pixels, fitted or filled, encoded at `quality`.
        case image(width: Int, height: Int, mode: ImageContentMode, quality: Int)
        /// A movie's poster frame, at most `side` pixels a side.
        case poster(side: Int)
        /// An H.264 version of a movie.
        case movie(VideoDerivative)
        /// A JPEG of a still stored in another format.
        case compatibleJPEG
        /// A copy of `source` without what `removal` removes (its location approximated, for
        /// `.approximateLocation`), named with the delivered type's extension.
        case stripped(Source, MetadataRemoval, fileExtension: String)
    }

    /// What a stripped copy is made from: the original, its compatible version (`movie(.compatible)`,
    /// `compatibleJPEG`), or a movie's fast or medium version (`movie(.fast)`, `movie(.medium)`).
    enum Source: String, Sendable {
        case original, compatible, fast, medium
    }

    /// The side and quality of the owner's thumbnails (the one made at import included).
    static let ownerThumbnailSide = 256
    static let ownerThumbnailQuality = 80

    let contentHash: String
    let kind: Kind

    /// The owner's thumbnail of a still, or a movie's poster frame, at most `side` pixels a side.
    static func ownerThumbnail(of asset: AssetRecord, side: Int) -> RenditionKey {
        RenditionKey(contentHash: asset.contentHash, kind: asset.mediaType == .video ? .poster(side: side)
            : .image(width: side, height: side, mode: .fit, quality: ownerThumbnailQuality))
    }

    /// `<content hash>.<kind>`: the renditions of one content share the prefix (`Catalog.remove`
    /// removes them by it), and no two kinds share a name.
    var fileName: String { "\(contentHash).\(kind.name)" }
}

extension RenditionKey.Kind {
    /// The kind's part of the file name. Raw values, not the enums' descriptions: these are
    /// built for every request, and a description goes through reflection.
    var name: String {
        switch self {
        case let .image(width, height, mode, quality): "thumb-\(width)x\(height)-\(mode.rawValue)-q\(quality)"
        case let .poster(side): "poster-\(side)"
        case .movie(.fast): "video-360p.mp4"
        case .movie(.medium): "video-720p.mp4"
        case .movie(.compatible): "video-compatible.mp4"
        case .compatibleJPEG: "compatible.jpg"
        case let .stripped(source, .approximateLocation, fileExtension): "\(source.rawValue).approximate-location.\(fileExtension)"
        case let .stripped(source, removal, fileExtension): "\(source.rawValue).no-\(removal.rawValue).\(fileExtension)"
        }
    }
}

import LightboxProtocol

/// Which types an item provider registers, following PHPickerConfiguration's
/// preferredAssetRepresentationMode: `current` gives the original, `compatible` a JPEG in place of
/// HEIC and WebP stills and an H.264 MP4 in place of HEVC movies, `automatic` both (the original
/// first), as PhotoKit does.
enum Representations {
    /// Stills in formats older software may not read, which get a JPEG representation.
    static func hasCompatibleJPEG(_ asset: AssetRecord) -> Bool {
        UTType.hasCompatibleJPEG(asset.type, animated: asset.isAnimated)
    }

    /// HEVC movies, which get an H.264 MP4 representation. One already in an MP4 container has
    /// none: both would be public.mpeg-4, and a token cannot tell them apart.
    static func hasCompatibleMovie(_ asset: AssetRecord) -> Bool {
        asset.mediaType == .video && asset.type != .mpeg4Movie && asset.imageProperties["{Video}"]?["Codec"] == .string("hevc")
    }

    static func registeredTypes(for asset: AssetRecord, mode: PickerConfiguration.RepresentationMode,
                                stripping: MetadataStripping) -> [UTType] {
        // A Live Photo registers its bundle type, then the still's types, then its movie (PHPicker's order).
        guard let movie = asset.pairedType else { return stillTypes(for: asset, mode: mode, stripping: stripping) }
        return [.livePhoto] + stillTypes(for: asset, mode: mode, stripping: stripping) + [movie]
    }

    private static func stillTypes(for asset: AssetRecord, mode: PickerConfiguration.RepresentationMode,
                                   stripping: MetadataStripping) -> [UTType] {
        let compatible: UTType? = hasCompatibleJPEG(asset) ? .jpeg : hasCompatibleMovie(asset) ? .mpeg4Movie : nil
        // HEIC metadata cannot be removed in place: a stripped HEIC is delivered as JPEG.
        if stripping != .none, asset.type == .heic { return [.jpeg] }
        switch mode {
        case .current: return [asset.type]
        case .compatible: return compatible.map { [$0] } ?? [asset.type]
        case .automatic: return [asset.type] + (compatible.map { [$0] } ?? [])
        }
    }

    /// The type a Live Photo's bundle type is delivered as: its first still representation.
    static func livePhotoStill(among registered: [UTType], of asset: AssetRecord) -> UTType {
        registered.first { $0.conforms(to: .image) } ?? asset.type
    }

    /// The registered type that answers a request for `requested` (itself or a descendant).
    static func representation(answering requested: UTType, among registered: [UTType]) -> UTType? {
        registered.first { $0.conforms(to: requested) }
    }

    /// Image properties as the delivered bytes carry them: without the location or without any
    /// metadata when the pick asked for that.
    static func properties(_ properties: [String: JSONValue], stripping: MetadataStripping) -> [String: JSONValue] {
        switch stripping {
        case .none:
            return properties
        case .location:
            return properties.filter { $0.key != "{GPS}" }
        case .all:
            return properties.filter { !$0.key.hasPrefix("{") || $0.key == "{GIF}" || $0.key == "{WebP}" || $0.key == "{PNG}" }
        }
    }
}

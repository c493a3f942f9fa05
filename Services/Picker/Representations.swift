import LightboxProtocol
import Media

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
                                removing removal: MetadataRemoval) -> [UTType] {
        // A Live Photo registers its bundle type, then the still's types, then its movie (PHPicker's order).
        guard let movie = asset.pairedType else { return stillTypes(for: asset, mode: mode, removing: removal) }
        return [.livePhoto] + stillTypes(for: asset, mode: mode, removing: removal) + [movie]
    }

    private static func stillTypes(for asset: AssetRecord, mode: PickerConfiguration.RepresentationMode,
                                   removing removal: MetadataRemoval) -> [UTType] {
        let compatible: UTType? = hasCompatibleJPEG(asset) ? .jpeg : hasCompatibleMovie(asset) ? .mpeg4Movie : nil
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

    /// What is left to remove from `asset` of what `removal` asks: a location removed or
    /// approximated from an asset whose EXIF or QuickTime metadata names no place leaves it as it is
    /// (so it is delivered as stored, not copied) — except a JPEG, PNG, WebP, GIF or HEIC, which always
    /// goes through the stripper: XMP may hold place names and positions the catalog does not list.
    /// Stripping everything always applies.
    static func removal(_ removal: MetadataRemoval, for asset: AssetRecord) -> MetadataRemoval {
        removal == .all || asset.imageProperties["{GPS}"] != nil || MetadataStripper.rewritesInPlace(asset.type) ? removal : .none
    }
}

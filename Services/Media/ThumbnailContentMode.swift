/// How a thumbnail meets its target box (PHImageContentMode).
public enum ThumbnailContentMode: String, Sendable, Hashable, CaseIterable {
    /// The whole image, as large as fits inside the box, keeping its aspect ratio. Never larger
    /// than the image itself: a small image in a big box comes back at its own size.
    case fit
    /// Exactly the box: scaled to cover it (enlarged if need be), then cropped around the centre.
    case fill
}

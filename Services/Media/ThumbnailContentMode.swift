/// How a thumbnail meets its target box (PHImageContentMode).
public enum ThumbnailContentMode: String, Sendable, Hashable, CaseIterable {
    /// The whole image, as large as fits inside the box, keeping its aspect ratio. Never larger
    /// than the image itself: a small image in a big box comes back at its own size.
    case fit
    /// The box's shape: scaled to cover the box, then cropped around the centre. Never enlarged:
    /// a box larger than the image gives the largest crop of its shape at the image's own scale.
    case fill
}

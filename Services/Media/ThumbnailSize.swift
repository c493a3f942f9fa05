/// The size a thumbnail is rendered at. Like PhotoKit, Lightbox never enlarges: a box larger than
/// the image gives the image at its own size (`.fit`), or the largest crop of the box's shape that
/// the image holds at scale 1 (`.fill`). Asking for more pixels than the image has buys nothing,
/// so an app cannot make the service hold a 16384 × 16384 canvas for a 300 × 400 photo.
public enum ThumbnailSize {
    /// The box to render `imageWidth` × `imageHeight` (upright) into, for a request of
    /// `width` × `height`: the request itself when it shrinks the image, else the unscaled size.
    public static func bounded(
        width: Int, height: Int, contentMode: ThumbnailContentMode, imageWidth: Int, imageHeight: Int
    ) -> (width: Int, height: Int) {
        guard width > 0, height > 0, imageWidth > 0, imageHeight > 0 else { return (width, height) }
        let horizontal = Double(width) / Double(imageWidth)
        let vertical = Double(height) / Double(imageHeight)
        switch contentMode {
        case .fit:
            // The scale that fits is the smaller one; at 1 or more the whole image is the answer.
            return min(horizontal, vertical) >= 1 ? (imageWidth, imageHeight) : (width, height)
        case .fill:
            let scale = max(horizontal, vertical)
            guard scale > 1 else { return (width, height) }
            return (min(max(Int((Double(width) / scale).rounded()), 1), imageWidth),
                    min(max(Int((Double(height) / scale).rounded()), 1), imageHeight))
        }
    }

    /// Width and height as shown: EXIF orientations 5–8 turn the image a quarter.
    public static func upright(width: Int, height: Int, orientation: Int?) -> (width: Int, height: Int) {
        (5...8).contains(orientation ?? 1) ? (height, width) : (width, height)
    }
}

extension Duration {
    /// Whole microseconds, for libvips' clock; at least 0.
    var microseconds: Int {
        let (seconds, attoseconds) = components
        return Int(max(0, seconds &* 1_000_000 &+ attoseconds / 1_000_000_000_000))
    }
}

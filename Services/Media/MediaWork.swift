/// What the picker was doing with a file when media work failed; it words the error an app is told
/// (`MediaError.lightboxError`).
public enum MediaWork: Sendable, Hashable {
    /// Preparing a representation of an asset for delivery (a compatible JPEG, metadata removed).
    case prepareAsset
    /// Rendering a thumbnail or sized image.
    case renderImage
    /// Transcoding a movie or remuxing it without metadata.
    case prepareMovie
    /// Taking a movie's poster frame for the owner's pages.
    case makePosterFrame
    /// Taking in a file an app added to the library.
    case acceptAddedFile
    /// Taking in an app's edited version of an asset.
    case acceptEditedFile
}

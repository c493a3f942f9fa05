import Foundation
import LightboxProtocol

/// An encoded thumbnail: its bytes, their type and pixel size (upright: orientation is applied).
///
/// Not called `RenderedImage`: LightboxClient has a type of that name (an image-manager result), and
/// code that imports both modules would find the name ambiguous.
public struct RenderedThumbnail: Sendable, Hashable {
    /// JPEG, or PNG when the source has transparency; no metadata (no EXIF, no location).
    public var data: Data
    /// `UTType.jpeg` or `UTType.png`.
    public var type: UTType
    public var pixelWidth: Int
    public var pixelHeight: Int

    public init(data: Data, type: UTType, pixelWidth: Int, pixelHeight: Int) {
        self.data = data
        self.type = type
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }
}

import Foundation

/// The smallest EXIF block there is: IFD 0 with one entry, Orientation. What `.all` stripping
/// writes in place of the original EXIF when the image is not stored upright, so that it still
/// shows the right way up without its pixels being decoded and turned.
enum OrientationOnlyEXIF {
    /// TIFF data (big-endian), without the `Exif\0\0` header; nil for orientation 1 or none.
    static func tiff(orientation: Int?) -> Data? {
        guard let orientation, (2...8).contains(orientation) else { return nil }
        return Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8,  // big-endian TIFF, IFD 0 at 8
                     0, 1,  // one entry
                     0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0,  // Orientation, SHORT, 1 value
                     0, 0, 0, 0])  // no next IFD
    }
}

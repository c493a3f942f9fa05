import CVips
import Foundation

/// The ICC profile a file carries, as libvips reads it from the header (no pixels are decoded).
/// Used where the profile is compressed (PNG's iCCP chunk is zlib data, and Lightbox links no
/// zlib of its own); formats that store it plainly are read directly by their readers.
enum EmbeddedICCProfile {
    static func read(_ url: URL) -> Data? {
        guard (try? VipsRuntime.start()) != nil,
              let loaded = lightbox_vips_load(url.path, VIPS_ACCESS_SEQUENTIAL) else {
            VipsRuntime.clearErrors()
            return nil
        }
        let image = VipsImageReference(loaded)
        var bytes: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(image.pointer, "icc-profile-data") != 0,
              vips_image_get_blob(image.pointer, "icc-profile-data", &bytes, &length) == 0,
              let bytes, length > 0 else { return nil }
        return Data(bytes: bytes, count: length)
    }
}

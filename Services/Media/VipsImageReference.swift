import CVips

/// Owns one reference to a `VipsImage` and drops it when released, so every exit path of a
/// pipeline frees what it made.
final class VipsImageReference {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    /// The value of "white" for this image's sample format (16-bit images keep 16 bits).
    var white: Double {
        switch vips_image_get_interpretation(pointer) {
        case VIPS_INTERPRETATION_RGB16, VIPS_INTERPRETATION_GREY16: 65535
        default: 255
        }
    }
}

// libvips for Services/Media. Its include path comes from pkg-config's gobject-2.0 (vips.pc adds
// -pthread, which SwiftPM rejects); the library is linked by the module map.
//
// libvips' API is mostly variadic (`name, value, …, NULL` option lists), which Swift cannot call,
// so the few calls Lightbox makes are wrapped here with fixed arguments.
#include <vips/vips.h>
#include <vips/vector.h>  // vips_vector_set_enabled: not part of vips.h

/// vips_thumbnail: shrink-on-load, autorotate, then a centre crop when `crop` is non-zero.
/// `size` is a VipsSize (VIPS_SIZE_DOWN: never enlarge; VIPS_SIZE_BOTH).
static inline int lightbox_vips_thumbnail(const char *filename, VipsImage **out, int width, int height,
                                          int crop, VipsSize size) {
    return vips_thumbnail(filename, out, width, "height", height, "size", size,
                          "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
}

/// vips_thumbnail_buffer: the same from bytes in memory, which libvips reads in place (they must
/// outlive `out` and everything computed from it). Finding the loader reads the buffer, not the
/// file: from a file name libvips opens the file again for each loader it asks.
static inline int lightbox_vips_thumbnail_buffer(const void *buffer, size_t length, VipsImage **out, int width, int height,
                                                 int crop, VipsSize size) {
    return vips_thumbnail_buffer((void *) buffer, length, out, width, "height", height, "size", size,
                                 "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
}

/// The first page or frame of an image in memory, read in place and in order (the bytes must
/// outlive the image and everything computed from it); NULL when no allowed loader takes it.
static inline VipsImage *lightbox_vips_load_buffer(const void *buffer, size_t length) {
    return vips_image_new_from_buffer(buffer, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// Whether vips_thumbnail would give `image` back unchanged when it needs no resizing: 8-bit sRGB
/// or grey pixels, no alpha to premultiply, no orientation to apply, no embedded ICC profile to
/// convert from.
static inline int lightbox_vips_is_plain(VipsImage *image) {
    int bands = vips_image_get_bands(image);
    VipsInterpretation interpretation = vips_image_get_interpretation(image);
    return vips_image_get_format(image) == VIPS_FORMAT_UCHAR
        && ((bands == 3 && interpretation == VIPS_INTERPRETATION_sRGB) || (bands == 1 && interpretation == VIPS_INTERPRETATION_B_W))
        && vips_image_get_orientation(image) == 1
        && vips_image_get_typeof(image, VIPS_META_ICC_NAME) == 0;
}

/// The whole first page or frame, read with `access` (VIPS_ACCESS_SEQUENTIAL when nothing needs to
/// move pixels around, VIPS_ACCESS_RANDOM to rotate).
static inline VipsImage *lightbox_vips_load(const char *filename, VipsAccess access) {
    return vips_image_new_from_file(filename, "access", access, NULL);
}

/// Turns the image upright by its orientation tag and removes the tag.
static inline int lightbox_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Removes an alpha channel by blending over white (`white` is 255 for 8-bit images, 65535 for 16).
static inline int lightbox_vips_flatten(VipsImage *in, VipsImage **out, double white) {
    double background[] = {white, white, white};
    VipsArrayDouble *array = vips_array_double_new(background, 3);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

/// JPEG into a g_malloc'd buffer (free with g_free). `strip` drops all metadata.
static inline int lightbox_vips_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality, int strip) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", strip, "optimize_coding", TRUE, NULL);
}

/// PNG into a g_malloc'd buffer (free with g_free), without metadata.
static inline int lightbox_vips_pngsave_buffer(VipsImage *in, void **buffer, size_t *length) {
    return vips_pngsave_buffer(in, buffer, length, "strip", TRUE, NULL);
}

/// JPEG into a file, keeping EXIF, XMP and the ICC profile (the image's metadata fields as they
/// are, so an autorotated image is saved with orientation 1).
static inline int lightbox_vips_jpegsave(VipsImage *in, const char *filename, int quality) {
    return vips_jpegsave(in, filename, "Q", quality, "optimize_coding", TRUE, NULL);
}

/// A time limit on one evaluation: the deadline (g_get_monotonic_time microseconds) and whether
/// it was reached. Owned by the image it watches (freed with it).
typedef struct {
    gint64 deadline;
    volatile gint expired;
} LightboxVipsTimeLimit;

/// Called as libvips computes an image: once the deadline has passed, the evaluation is killed
/// and the operation computing it fails.
static void lightbox_vips_deadline_eval(VipsImage *image, VipsProgress *progress, void *data) {
    (void)progress;
    LightboxVipsTimeLimit *limit = (LightboxVipsTimeLimit *)data;
    if (g_get_monotonic_time() >= limit->deadline) {
        g_atomic_int_set(&limit->expired, 1);
        vips_image_set_kill(image, TRUE);
    }
}

/// Gives the evaluation of `image` `budget_us` microseconds from now (0 or less: already over).
/// The returned limit lives as long as `image`; ask it with lightbox_vips_time_limit_expired.
static inline LightboxVipsTimeLimit *lightbox_vips_set_time_limit(VipsImage *image, gint64 budget_us) {
    LightboxVipsTimeLimit *limit = g_new0(LightboxVipsTimeLimit, 1);
    limit->deadline = g_get_monotonic_time() + budget_us;
    vips_image_set_progress(image, TRUE);
    g_signal_connect_data(image, "eval", G_CALLBACK(lightbox_vips_deadline_eval), limit,
                          (GClosureNotify)(void (*)(void))g_free, (GConnectFlags)0);
    return limit;
}

/// Whether the deadline of `limit` has passed already (checked before an evaluation starts: libvips
/// signals progress only now and then, so a small image can finish before its first signal).
static inline int lightbox_vips_time_limit_passed(LightboxVipsTimeLimit *limit) {
    if (g_get_monotonic_time() < limit->deadline) return 0;
    g_atomic_int_set(&limit->expired, 1);
    return 1;
}

/// Whether the evaluation watched by `limit` ran past its deadline and was killed.
static inline int lightbox_vips_time_limit_expired(LightboxVipsTimeLimit *limit) {
    return g_atomic_int_get(&limit->expired);
}

import CVips
import Foundation
import LightboxProtocol

/// Pixels through libvips, and only here: thumbnails and the JPEG that stands in for HEIC and WebP
/// when an app asks for a compatible representation.
///
/// Every call first reads the file's headers with `MetadataReader` (so the type comes from the
/// content, and a broken file is refused the way the importer refuses it), refuses movies, and
/// refuses images larger than `maximumPixelCount` before decoding anything. libvips runs with only
/// the JPEG, PNG, GIF, WebP and HEIF loaders enabled.
///
/// The methods throw only `MediaError`; they are declared untyped for the reason given on
/// `MetadataReader.read(fileAt:)`.
public enum ImageRenderer {
    /// The most pixels (width × height, as stored) an image may have to be decoded: 200 megapixels,
    /// about 800 MB as 8-bit RGBA. Larger ones are refused with `MediaError.Code.tooLarge`.
    public static let maximumPixelCount = 200_000_000
    /// The largest thumbnail side accepted.
    public static let maximumTargetSide = 16_384
    /// How long one rendering may compute before libvips is told to stop (the `timeLimit` default).
    public static let defaultTimeLimit: Duration = .seconds(20)

    /// A thumbnail that fits (`.fit`) or fills (`.fill`) `targetWidth` × `targetHeight`, turned
    /// upright by its EXIF orientation. JPEG bytes at `quality` (1–100), or PNG when the source
    /// has transparency; no metadata is kept. Animated GIF and WebP give their first frame.
    ///
    /// libvips shrinks on load where the format allows (JPEG decodes at 1/2, 1/4 or 1/8 scale, HEIC
    /// uses its embedded thumbnail when that is large enough), so a thumbnail of a large photo never
    /// holds the full image in memory. The image is never enlarged (see `ThumbnailSize.bounded`),
    /// and computing it stops with `MediaError.Code.timedOut` after `timeLimit`.
    ///
    /// `contents`, when the caller has just read the whole file (an import does), is decoded in
    /// place of the file: the file is not opened at all.
    public static func thumbnail(
        of url: URL, contents: Data? = nil, targetWidth: Int, targetHeight: Int, contentMode: ThumbnailContentMode,
        quality: Int = 85, timeLimit: Duration = defaultTimeLimit
    ) throws -> RenderedThumbnail {
        let request = ThumbnailRequest(width: targetWidth, height: targetHeight, contentMode: contentMode, quality: quality, timeLimit: timeLimit)
        guard let contents else { return try makeThumbnail(of: url, contents: nil, request) }
        // libvips reads the bytes in place until the thumbnail is encoded, so all of it runs inside.
        let rendered = contents.withUnsafeBytes { bytes in
            Result { () throws(MediaError) in try makeThumbnail(of: url, contents: (contents, bytes), request) }
        }
        return try rendered.get()
    }

    struct ThumbnailRequest {
        var width: Int
        var height: Int
        var contentMode: ThumbnailContentMode
        var quality: Int
        var timeLimit: Duration
    }

    /// The whole image as a JPEG at `quality`, written to `destination` (through a temporary file
    /// beside it, renamed into place): turned upright with its orientation tag reset to 1, EXIF
    /// (location included), XMP and ICC profile kept, transparency flattened onto white. This is the
    /// "compatible" representation of a HEIC or WebP still; an animation gives its first frame.
    /// Stops with `MediaError.Code.timedOut` after `timeLimit`.
    public static func compatibleJPEG(of url: URL, to destination: URL, quality: Int = 90, timeLimit: Duration = defaultTimeLimit) throws {
        try makeCompatibleJPEG(of: url, to: destination, quality: quality, timeLimit: timeLimit)
    }

    // MARK: - Typed implementations

    /// `contents` is the file's bytes and their address, valid for the whole call, or nil to read the file.
    static func makeThumbnail(
        of url: URL, contents: (data: Data, bytes: UnsafeRawBufferPointer)?, _ request: ThumbnailRequest
    ) throws(MediaError) -> RenderedThumbnail {
        let start = ContinuousClock.now
        let (targetWidth, targetHeight, contentMode, quality) = (request.width, request.height, request.contentMode, request.quality)
        guard (1...maximumTargetSide).contains(targetWidth), (1...maximumTargetSide).contains(targetHeight) else {
            throw MediaError(.invalidArgument, "A thumbnail must be 1 to \(maximumTargetSide) pixels on each side, not \(targetWidth) × \(targetHeight)")
        }
        try checkQuality(quality)
        let file = if let contents { FileBytes(url, contents: contents.data) } else { try FileBytes(url) }
        let metadata = try decodableImage(file)
        let upright = ThumbnailSize.upright(width: metadata.pixelWidth ?? 0, height: metadata.pixelHeight ?? 0, orientation: metadata.orientation)
        let box = ThumbnailSize.bounded(width: targetWidth, height: targetHeight, contentMode: contentMode,
                                        imageWidth: upright.width, imageHeight: upright.height)
        if let plain = try encodedAsIs(url, contents: contents?.bytes, metadata: metadata, box: box, request, start: start) { return plain }
        return try pipelineThumbnail(url, contents: contents?.bytes, metadata: metadata, box: box, request, start: start)
    }

    /// The thumbnail through libvips' thumbnail pipeline: shrink-on-load, orientation, colour
    /// management, resizing to `box` (cropped to it for `.fill`), then JPEG, or PNG to keep alpha.
    static func pipelineThumbnail(
        _ url: URL, contents: UnsafeRawBufferPointer?, metadata: MediaMetadata, box: (width: Int, height: Int),
        _ request: ThumbnailRequest, start: ContinuousClock.Instant
    ) throws(MediaError) -> RenderedThumbnail {
        var output: UnsafeMutablePointer<VipsImage>?
        let crop = request.contentMode == .fill ? Int32(1) : 0
        let size = request.contentMode == .fill ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
        let status = if let contents, let base = contents.baseAddress {
            lightbox_vips_thumbnail_buffer(base, contents.count, &output, Int32(box.width), Int32(box.height), crop, size)
        } else {
            lightbox_vips_thumbnail(url.path, &output, Int32(box.width), Int32(box.height), crop, size)
        }
        guard status == 0, let output else {
            throw decodeError(url)
        }
        let image = VipsImageReference(output)
        let limit = lightbox_vips_set_time_limit(image.pointer, (request.timeLimit - (ContinuousClock.now - start)).microseconds)
        let hasAlpha = metadata.hasAlpha == true && image.hasAlpha
        let data = try encode(image, of: url, limit: limit, timeLimit: request.timeLimit) { (pointer, buffer, length) in
            hasAlpha ? lightbox_vips_pngsave_buffer(pointer, buffer, length)
                : lightbox_vips_jpegsave_buffer(pointer, buffer, length, Int32(request.quality), 1)
        }
        return RenderedThumbnail(data: data, type: hasAlpha ? .png : .jpeg, pixelWidth: image.width, pixelHeight: image.height)
    }

    /// The thumbnail of an image that fits the box as it is and that libvips' thumbnail would pass
    /// through unchanged (a JPEG or PNG of 8-bit sRGB or grey pixels without alpha, orientation or
    /// embedded profile): the image loaded once and encoded, the same bytes the pipeline gives for
    /// less work (the pipeline loads the image twice and runs its steps as operations of their
    /// own). An import proves small images by the thousand this way. Nil when
    /// the image needs the pipeline; only its header has been read then.
    static func encodedAsIs(
        _ url: URL, contents: UnsafeRawBufferPointer?, metadata: MediaMetadata, box: (width: Int, height: Int),
        _ request: ThumbnailRequest, start: ContinuousClock.Instant
    ) throws(MediaError) -> RenderedThumbnail? {
        guard request.contentMode == .fit, (metadata.orientation ?? 1) == 1, box == (metadata.pixelWidth ?? 0, metadata.pixelHeight ?? 0),
              metadata.type == .jpeg || metadata.type == .png, metadata.hasAlpha != true else { return nil }
        let loaded = if let contents, let base = contents.baseAddress {
            lightbox_vips_load_buffer(base, contents.count)
        } else {
            lightbox_vips_load(url.path, VIPS_ACCESS_SEQUENTIAL)
        }
        guard let loaded else { throw decodeError(url) }
        let image = VipsImageReference(loaded)
        guard lightbox_vips_is_plain(image.pointer) != 0, (image.width, image.height) == box else { return nil }
        let limit = lightbox_vips_set_time_limit(image.pointer, (request.timeLimit - (ContinuousClock.now - start)).microseconds)
        let data = try encode(image, of: url, limit: limit, timeLimit: request.timeLimit) { (pointer, buffer, length) in
            lightbox_vips_jpegsave_buffer(pointer, buffer, length, Int32(request.quality), 1)
        }
        return RenderedThumbnail(data: data, type: .jpeg, pixelWidth: image.width, pixelHeight: image.height)
    }

    static func makeCompatibleJPEG(of url: URL, to destination: URL, quality: Int, timeLimit: Duration) throws(MediaError) {
        let start = ContinuousClock.now
        try checkQuality(quality)
        let metadata = try decodableImage(FileBytes(url))
        // Turning the pixels needs random access; an upright image streams through top to bottom.
        let upright = (metadata.orientation ?? 1) == 1
        guard let loaded = lightbox_vips_load(url.path, upright ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM) else {
            throw decodeError(url)
        }
        var image = VipsImageReference(loaded)
        var rotated: UnsafeMutablePointer<VipsImage>?
        guard lightbox_vips_autorot(image.pointer, &rotated) == 0, let rotated else { throw decodeError(url) }
        image = VipsImageReference(rotated)
        if image.hasAlpha {
            var flattened: UnsafeMutablePointer<VipsImage>?
            guard lightbox_vips_flatten(image.pointer, &flattened, image.white) == 0, let flattened else { throw decodeError(url) }
            image = VipsImageReference(flattened)
        }
        let limit = lightbox_vips_set_time_limit(image.pointer, (timeLimit - (ContinuousClock.now - start)).microseconds)
        if let limit, lightbox_vips_time_limit_passed(limit) != 0 { throw timedOut(url, timeLimit) }
        try AtomicFileWriter.write(to: destination) { (temporary) throws(MediaError) in
            guard lightbox_vips_jpegsave(image.pointer, temporary.path, Int32(quality)) == 0 else {
                if let limit, lightbox_vips_time_limit_expired(limit) != 0 { throw timedOut(url, timeLimit) }
                throw MediaError(.malformed, "Cannot make a JPEG of \(url.lastPathComponent): \(VipsRuntime.error(for: url, or: "libvips failed"))")
            }
        }
    }

    // MARK: - Steps

    /// The file's metadata, once it is known to be a still or animated image libvips may decode.
    static func decodableImage(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        try VipsRuntime.start()
        let url = file.url
        let metadata = try MetadataReader.read(file)
        guard metadata.mediaType == .image else {
            throw MediaError(.unsupportedFormat, "\(url.lastPathComponent) is a movie; Lightbox renders images only (libvips does not read video)")
        }
        try DecompressionGuard.check(metadata, of: file, limit: maximumPixelCount)
        VipsRuntime.clearErrors()
        return metadata
    }

    static func checkQuality(_ quality: Int) throws(MediaError) {
        guard (1...100).contains(quality) else {
            throw MediaError(.invalidArgument, "Quality must be 1 to 100, not \(quality)")
        }
    }

    /// Runs a libvips saver that fills a g_malloc'd buffer, and copies the buffer out.
    static func encode(
        _ image: VipsImageReference, of url: URL, limit: UnsafeMutablePointer<LightboxVipsTimeLimit>?, timeLimit: Duration,
        _ save: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    ) throws(MediaError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        if let limit, lightbox_vips_time_limit_passed(limit) != 0 { throw timedOut(url, timeLimit) }
        guard save(image.pointer, &buffer, &length) == 0, let buffer else {
            if let limit, lightbox_vips_time_limit_expired(limit) != 0 { throw timedOut(url, timeLimit) }
            throw MediaError(.malformed, "Cannot render \(url.lastPathComponent): \(VipsRuntime.error(for: url, or: "libvips failed"))")
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    static func timedOut(_ url: URL, _ timeLimit: Duration) -> MediaError {
        MediaError(.timedOut, "Rendering \(url.lastPathComponent) took longer than \(timeLimit) and was stopped")
    }

    static func decodeError(_ url: URL) -> MediaError {
        MediaError(.malformed, "Cannot decode \(url.lastPathComponent): \(VipsRuntime.error(for: url, or: "libvips failed"))")
    }
}

import CAVFormat
import CVips
import Foundation
import LightboxProtocol

/// A movie's poster frame: its first picture, decoded by libavcodec, scaled by libswscale and
/// encoded as JPEG by libvips. This is what the owner's grid shows for a video.
public enum PosterFrame {
    /// The most pixels a movie's picture may have to be decoded (8K UHD).
    public static let maximumPixelCount = 7680 * 4320
    /// Packets read before giving up on finding a picture (a movie whose video starts late, or a
    /// hostile file, costs no more than this).
    static let maximumPackets = 600

    /// A JPEG of the movie's first picture, at most `side` pixels on its longer side.
    public static func jpeg(of url: URL, side: Int, quality: Int = 80) throws -> RenderedThumbnail {
        try makeJPEG(of: url, side: side, quality: quality)
    }

    static func makeJPEG(of url: URL, side: Int, quality: Int) throws(MediaError) -> RenderedThumbnail {
        guard (1...ImageRenderer.maximumTargetSide).contains(side) else {
            throw MediaError(.invalidArgument, "A poster frame must be 1 to \(ImageRenderer.maximumTargetSide) pixels a side, not \(side)")
        }
        try ImageRenderer.checkQuality(quality)
        try VipsRuntime.start()
        var rgb: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        let status = lightbox_av_poster_rgb(url.path, Int32(side), Int64(maximumPixelCount), Int32(maximumPackets), &rgb, &width, &height)
        guard status == 0, let rgb else {
            throw MediaError(.malformed, "Cannot decode a picture of \(url.lastPathComponent): \(Self.describe(status))")
        }
        defer { av_free(rgb) }
        let length = Int(width) * Int(height) * 3
        guard let memory = vips_image_new_from_memory_copy(rgb, length, width, height, 3, VIPS_FORMAT_UCHAR) else {
            throw ImageRenderer.decodeError(url)
        }
        let image = VipsImageReference(memory)
        let data = try ImageRenderer.encode(image, of: url, limit: nil, timeLimit: .seconds(60)) { pointer, buffer, length in
            lightbox_vips_jpegsave_buffer(pointer, buffer, length, Int32(quality), 1)
        }
        return RenderedThumbnail(data: data, type: .jpeg, pixelWidth: Int(width), pixelHeight: Int(height))
    }

    static func describe(_ status: Int32) -> String {
        if status == -E2BIG { return "its picture is larger than \(maximumPixelCount) pixels" }
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

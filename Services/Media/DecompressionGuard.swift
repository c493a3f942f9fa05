import Foundation
import LightboxProtocol

/// Refuses images that would take too much memory to decode, before any pixel is decoded: a few
/// hundred bytes can declare a 65535 × 65535 canvas (a "decompression bomb"). The size comes from
/// the headers `MetadataReader` reads; for GIF, also from every frame's descriptor, since a frame
/// may reach past the declared canvas and decoders grow the canvas to hold it.
enum DecompressionGuard {
    static func check(_ metadata: MediaMetadata, of file: FileBytes, limit: Int) throws(MediaError) {
        let name = file.url.lastPathComponent
        guard let width = metadata.pixelWidth, let height = metadata.pixelHeight, width > 0, height > 0 else {
            throw MediaError(.malformed, "\(name) does not say how large it is")
        }
        try check(width: width, height: height, name: name, what: "is", limit: limit)
        if metadata.type == .gif {
            let bytes: Data
            if let contents = file.contents {
                bytes = contents
            } else {
                do {
                    bytes = try Data(contentsOf: file.url, options: .alwaysMapped)
                } catch {
                    throw MediaError(.unreadable, "Cannot read \(name): \(error.localizedDescription)")
                }
            }
            let area = try GIFStructure(bytes, name: name).decodedArea
            try check(width: area.width, height: area.height, name: name, what: "has frames that reach", limit: limit)
        }
    }

    private static func check(width: Int, height: Int, name: String, what: String, limit: Int) throws(MediaError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limit else {
            let megapixels = overflow ? "too many" : String(format: "%.0f", Double(pixels) / 1e6)
            throw MediaError(.tooLarge, "\(name) \(what) \(width) × \(height) pixels (\(megapixels) megapixels); Lightbox decodes at most \(limit / 1_000_000) megapixels")
        }
    }
}

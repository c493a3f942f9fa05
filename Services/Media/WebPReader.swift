import CWebP
import Foundation

/// WebP through libwebp and libwebpdemux: canvas size, animation, frame count and duration.
enum WebPReader {
    static func read(_ file: FileBytes) throws -> MediaMetadata {
        var metadata = MediaMetadata(type: .webP)
        let name = file.url.lastPathComponent
        let data = try file.read(at: 0, count: Int(min(file.size, 256 << 20)))
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var features = WebPBitstreamFeatures()
            guard WebPGetFeatures(bytes.baseAddress, bytes.count, &features) == VP8_STATUS_OK else {
                throw MediaError(.malformed, "\(name) is not a readable WebP file")
            }
            metadata.pixelWidth = Int(features.width)
            metadata.pixelHeight = Int(features.height)
            guard features.has_animation != 0 else {
                metadata.frameCount = 1
                return
            }
            var webPData = WebPData(bytes: bytes.baseAddress, size: bytes.count)
            guard let demux = WebPDemux(&webPData) else {
                throw MediaError(.malformed, "\(name) is an animated WebP whose frames cannot be read")
            }
            defer { WebPDemuxDelete(demux) }
            metadata.isAnimated = true
            metadata.frameCount = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
            var iterator = WebPIterator()
            var milliseconds = 0
            if WebPDemuxGetFrame(demux, 1, &iterator) != 0 {
                repeat { milliseconds += Int(iterator.duration) } while WebPDemuxNextFrame(&iterator) != 0
                WebPDemuxReleaseIterator(&iterator)
            }
            metadata.duration = Double(milliseconds) / 1000
        }
        return metadata
    }
}

import CWebP
import Foundation

/// WebP through libwebp and libwebpdemux: canvas size, alpha, lossless, animation (frames, loop
/// count, delays) and the EXIF and XMP chunks. Nothing is decoded: the demuxer reads chunk headers,
/// and the file is mapped, so only those pages are read.
enum WebPReader {
    static func read(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        let name = file.url.lastPathComponent
        let mapped = try MappedFile(file)
        defer { withExtendedLifetime(mapped) {} }  // the demuxer points into the mapping
        guard let base = mapped.bytes.bindMemory(to: UInt8.self).baseAddress else {
            throw MediaError(.malformed, "\(name) is empty")
        }
        var features = WebPBitstreamFeatures()
        guard WebPGetFeatures(base, mapped.bytes.count, &features) == VP8_STATUS_OK else {
            throw MediaError(.malformed, "\(name) is not a readable WebP file")
        }
        // The full demuxer (not the partial one) checks that every chunk is complete, so a file cut
        // short is reported here rather than imported and failing later when someone opens it.
        var webPData = WebPData(bytes: base, size: mapped.bytes.count)
        guard let demux = WebPDemux(&webPData) else {
            throw MediaError(.malformed, "\(name) is a damaged or truncated WebP file (its chunks do not add up)")
        }
        defer { WebPDemuxDelete(demux) }

        var metadata = MediaMetadata(type: .webP)
        metadata.pixelWidth = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
        metadata.pixelHeight = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
        metadata.hasAlpha = features.has_alpha != 0
        let frames = frames(demux)
        metadata.frameCount = max(1, frames.durations.count)
        metadata.isLossless = frames.areLossless
        if features.has_animation != 0 {
            metadata.isAnimated = true
            metadata.loopCount = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            metadata.duration = Double(frames.durations.reduce(0, +)) / 1000
            metadata.firstFrameDelay = frames.durations.first.map { Double($0) / 1000 }
        }
        if let exif = chunk("EXIF", in: demux) {
            metadata.apply(EXIFReader.tags(inTIFF: exif))
        }
        if let packet = chunk("XMP ", in: demux) {
            metadata.hasXMP = true
            metadata.applyXMPPosition(packet)
        }
        metadata.colorModel = "RGB"
        metadata.depth = 8
        metadata.profileName = chunk("ICCP", in: demux).flatMap(ICCProfileDescription.read)
        return metadata
    }

    /// Each frame's duration in milliseconds, and whether every frame is VP8L (nil without frames).
    /// A frame's payload starts with its first chunk's FourCC (ALPH and VP8 for lossy, VP8L for
    /// lossless), which tells the codec without decoding.
    static func frames(_ demux: OpaquePointer) -> (durations: [Int], areLossless: Bool?) {
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else { return ([], nil) }
        defer { WebPDemuxReleaseIterator(&iterator) }
        var durations: [Int] = []
        var areLossless = true
        repeat {
            durations.append(Int(iterator.duration))
            let fragment = UnsafeRawBufferPointer(start: iterator.fragment.bytes, count: iterator.fragment.size)
            areLossless = areLossless && fragment.count >= 4 && fragment.prefix(4).elementsEqual("VP8L".utf8)
        } while WebPDemuxNextFrame(&iterator) != 0
        return (durations, areLossless)
    }

    /// The first chunk with `fourCC`, copied out of the mapping.
    static func chunk(_ fourCC: String, in demux: OpaquePointer) -> Data? {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, fourCC, 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes else { return nil }
        return Data(bytes: bytes, count: iterator.chunk.size)
    }
}

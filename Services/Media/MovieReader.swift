import CAVFormat
import Dispatch
import Foundation
import LightboxProtocol

/// MP4, QuickTime and 3GP through libavformat: duration, the video track's size, codec and
/// rotation, the creation date, camera make and model, and an ISO 6709 (or XMP) location when the file has
/// one. Only the container's headers are read (the `moov` box, wherever it sits: libavformat seeks
/// past the media data), and no frame is decoded, so a large movie costs no more than a small one.
enum MovieReader {
    /// libavformat gives up when opening takes longer than this, so a hostile file cannot hold an
    /// import forever; a local file's headers take milliseconds.
    static let timeLimit: DispatchTimeInterval = .seconds(5)
    /// How much of a movie `probeFrameSize` may read.
    static let probeBytes: Int64 = 1 << 20

    /// libavformat prints its complaints about broken files to stderr; Lightbox reports them as a
    /// `MediaError` instead, so its own log stays the one place to look.
    private static let loggingSilenced: Bool = {
        av_log_set_level(AV_LOG_QUIET)
        return true
    }()

    static func read(_ file: FileBytes, type: UTType) throws(MediaError) -> MediaMetadata {
        let name = file.url.lastPathComponent
        _ = loggingSilenced
        // Read by libavformat's interrupt callback until the context is closed (defers run last first).
        let deadline = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        defer { deadline.deallocate() }
        deadline.pointee = (DispatchTime.now() + timeLimit).uptimeNanoseconds
        let context = try open(file, deadline: deadline)
        defer {
            var closing: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&closing)
        }
        let streams = (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
        guard !streams.isEmpty else { throw MediaError(.malformed, "\(name) has no tracks") }
        guard var video = streams.first(where: isVideoTrack) else {
            throw MediaError(.unsupportedFormat, "\(name) has no video track (Lightbox keeps photos and videos)")
        }
        if !hasSize(video) {
            probeFrameSize(context, video: video)
            video = streams.first { isVideoTrack($0) && hasSize($0) } ?? video
        }
        guard hasSize(video) else {
            throw MediaError(.malformed, "\(name) has a video track without a frame size")
        }
        let parameters = video.pointee.codecpar.pointee
        var metadata = MediaMetadata(type: type)
        metadata.pixelWidth = Int(parameters.width)
        metadata.pixelHeight = Int(parameters.height)
        metadata.duration = duration(context, video)
        metadata.codec = parameters.codec_id == AV_CODEC_ID_NONE ? nil : String(cString: avcodec_get_name(parameters.codec_id))
        metadata.rotation = rotation(video)
        metadata.frameCount = video.pointee.nb_frames > 0 ? Int(video.pointee.nb_frames) : nil

        let tags = MovieTags(context: context, video: video)
        // QuickTime's creationdate is when the camera started recording, with its zone; the
        // container's creation_time is when the file was written, in UTC. Prefer the first.
        metadata.creationDate = tags["com.apple.quicktime.creationdate"].flatMap(MediaTimestamp.iso8601)
            ?? tags["creation_time"].flatMap(MediaTimestamp.iso8601)
        metadata.contentIdentifier = tags["com.apple.quicktime.content.identifier"]
        metadata.cameraMake = tags["com.apple.quicktime.make"] ?? tags["com.android.manufacturer"] ?? tags["make"]
        metadata.cameraModel = tags["com.apple.quicktime.model"] ?? tags["com.android.model"] ?? tags["model"]
        metadata.location = (tags["com.apple.quicktime.location.ISO6709"] ?? tags["location"]).flatMap(GeoLocation.init(iso6709:))
            ?? tags["xmp"].flatMap(XMPLocation.position(in:))
        return metadata
    }

    /// Opens the file with the one demuxer ISO media needs (the sniffer already said what it is),
    /// the file protocol only, and a deadline: after it, libavformat's reads fail.
    private static func open(_ file: FileBytes, deadline: UnsafeMutablePointer<UInt64>) throws(MediaError) -> UnsafeMutablePointer<AVFormatContext> {
        let name = file.url.lastPathComponent
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard let allocated = context else {
            throw MediaError(.unreadable, "Cannot read \(name): libavformat could not allocate a context")
        }
        allocated.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return DispatchTime.now().uptimeNanoseconds > opaque.load(as: UInt64.self) ? 1 : 0
            },
            opaque: UnsafeMutableRawPointer(deadline))
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        // No other protocol: a crafted file must not make the demuxer open URLs or other files.
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        // The XMP packet as the `xmp` tag: a position only it gives is the movie's location too.
        av_dict_set(&options, "export_xmp", "1", 0)
        let status = avformat_open_input(&context, "file:" + file.url.path, av_find_input_format("mov"), &options)
        // On failure libavformat frees the context itself.
        guard status >= 0, let opened = context else {
            throw MediaError(.malformed, "\(name) is not a readable movie (\(errorText(status)))")
        }
        return opened
    }

    /// For MPEG-4 Part 2, H.263 and H.261 the demuxer leaves the frame size to the decoder (the
    /// container's numbers are unreliable for them), so the size is only known after looking at the
    /// stream. That is what `avformat_find_stream_info` does; it runs only for such tracks, only on
    /// the video track, and within a small budget of bytes and time.
    private static func probeFrameSize(_ context: UnsafeMutablePointer<AVFormatContext>, video: UnsafeMutablePointer<AVStream>) {
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], stream != video else { continue }
            stream.pointee.discard = AVDISCARD_ALL
        }
        context.pointee.probesize = probeBytes
        context.pointee.max_analyze_duration = Int64(AV_TIME_BASE)  // one second of media
        _ = avformat_find_stream_info(context, nil)
    }

    private static func isVideoTrack(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        // Cover art is a video stream of one picture; it is not the movie.
        stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
    }

    private static func hasSize(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        stream.pointee.codecpar.pointee.width > 0 && stream.pointee.codecpar.pointee.height > 0
    }

    /// Seconds: the movie header's duration, else the video track's.
    private static func duration(_ context: UnsafeMutablePointer<AVFormatContext>, _ video: UnsafeMutablePointer<AVStream>) -> Double? {
        if context.pointee.duration > 0 {
            return Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        let timeBase = video.pointee.time_base
        guard video.pointee.duration > 0, timeBase.den > 0 else { return nil }
        return Double(video.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// Degrees clockwise to turn the frames for display: from the track's display matrix, else the
    /// `rotate` tag older FFmpeg versions and some phones write. libavutil gives the matrix's angle
    /// counter-clockwise, hence the sign.
    private static func rotation(_ video: UnsafeMutablePointer<AVStream>) -> Int? {
        var degrees: Double?
        if let matrix = lightbox_stream_display_matrix(video) {
            let counterClockwise = av_display_rotation_get(matrix)
            if counterClockwise.isFinite { degrees = -counterClockwise }
        }
        if degrees == nil, let tag = MovieTags.value("rotate", in: video.pointee.metadata) {
            degrees = Double(tag)
        }
        guard let degrees, degrees.isFinite, abs(degrees) < 1_000_000 else { return nil }
        let whole = Int(degrees.rounded()) % 360
        return whole < 0 ? whole + 360 : whole
    }

    private static func errorText(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_strerror(status, &buffer, buffer.count) == 0 else { return "error \(status)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A movie's metadata tags: the container's first, then the video track's.
private struct MovieTags {
    let context: UnsafeMutablePointer<AVFormatContext>
    let video: UnsafeMutablePointer<AVStream>

    subscript(key: String) -> String? {
        Self.value(key, in: context.pointee.metadata) ?? Self.value(key, in: video.pointee.metadata)
    }

    static func value(_ key: String, in dictionary: OpaquePointer?) -> String? {
        guard let dictionary, let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

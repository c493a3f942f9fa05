import Foundation
import LightboxProtocol

/// The H.264/AAC MP4 versions of a movie that Lightbox makes: PHVideoRequestOptions' fast and
/// medium delivery, and the `compatible` representation of HEVC movies for older software.
public enum VideoDerivative: String, Sendable, CaseIterable {
    /// The shorter side at most 360 pixels.
    case fast
    /// The shorter side at most 720 pixels.
    case medium
    /// The original's size, H.264 in place of HEVC.
    case compatible

    /// The bound on the shorter side of the upright frame; nil keeps the size.
    public var shortSide: Int? {
        switch self {
        case .fast: 360
        case .medium: 720
        case .compatible: nil
        }
    }

    var constantRateFactor: Int {
        switch self {
        case .fast: 28
        case .medium: 23
        case .compatible: 20
        }
    }

    var audioBitrate: String {
        switch self {
        case .fast: "64k"
        case .medium: "128k"
        case .compatible: "160k"
        }
    }
}

/// Makes `VideoDerivative`s with ffmpeg (see `FFmpegProcess` for why a child process): one video
/// track to H.264 (x264, one thread, turned upright so that players without display-matrix support
/// show it right), the first audio track to AAC, in an MP4 whose index comes first. The result is
/// read back before it is accepted: an H.264 MP4 within the size bound and as long as the original.
public enum VideoTranscoder {
    /// Transcodes `source` into `destination` (written whole or not at all by the caller's cache),
    /// at most `TranscodeSlots.shared.limit` at once. `progress` gets the seconds encoded so far and
    /// the movie's duration. The headers are read (before and after) on `blocking`. Throws only `MediaError`.
    public static func transcode(
        _ source: URL, to destination: URL, as derivative: VideoDerivative, slots: TranscodeSlots = .shared,
        budget: FFmpegProcess.Budget? = nil, blocking: any BlockingRunner = DedicatedThread(),
        progress: @escaping @Sendable (_ encoded: Double, _ duration: Double) -> Void = { _, _ in }
    ) async throws {
        let name = source.lastPathComponent
        let original = try await blocking.run { try MetadataReader.read(fileAt: source) }
        guard original.mediaType == .video else {
            throw MediaError(.unsupportedFormat, "\(name) is not a movie")
        }
        let duration = original.duration ?? 0
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1", "-i", source.path,
                         "-map", "0:v:0", "-map", "0:a:0?", "-map_metadata", "0"]
        // ffmpeg does not carry the container's creation time into a transcode by itself.
        if let created = original.creationDate {
            arguments += ["-metadata", "creation_time=\(ISO8601DateFormatter().string(from: created))"]
        }
        arguments += ["-vf", scaleFilter(derivative.shortSide),
                      "-c:v", "libx264", "-preset", "veryfast", "-crf", "\(derivative.constantRateFactor)", "-pix_fmt", "yuv420p",
                      "-threads", "1", "-filter_threads", "1",
                      "-c:a", "aac", "-b:a", derivative.audioBitrate,
                      "-movflags", "+faststart", "-progress", "pipe:1", "-nostats", "-f", "mp4", "-y", destination.path]
        let command = arguments
        try await slots.run {
            try await FFmpegProcess.run(command, budget: budget ?? .forMovie(lasting: original.duration)) { line in
                // `-progress` writes key=value lines; out_time_us is how far the output has got.
                guard line.hasPrefix("out_time_us="), let microseconds = Double(line.dropFirst("out_time_us=".count)) else { return }
                progress(min(max(0, microseconds / 1_000_000), duration), duration)
            }
        }
        // ffmpeg's last report is the last frame's time, a little short of the duration.
        progress(duration, duration)
        try await blocking.run { try verify(destination, derivative, against: original, name: name) }
    }

    /// Scales the upright frame so that its shorter side is at most `bound` (never up), keeping the
    /// aspect ratio, with even sides as 4:2:0 H.264 needs.
    static func scaleFilter(_ bound: Int?) -> String {
        guard let bound else { return "scale=w='trunc(iw/2)*2':h='trunc(ih/2)*2'" }
        return "scale=w='if(gte(iw,ih),-2,trunc(min(\(bound),iw)/2)*2)':h='if(gte(iw,ih),trunc(min(\(bound),ih)/2)*2,-2)'"
    }

    static func verify(_ result: URL, _ derivative: VideoDerivative, against original: MediaMetadata, name: String) throws(MediaError) {
        let made: MediaMetadata
        do throws(MediaError) {
            made = try MetadataReader.read(FileBytes(result))
        } catch {
            throw MediaError(.malformed, "Transcoding \(name) left a file that does not read back (\(error.message))")
        }
        guard made.type == .mpeg4Movie, made.codec == "h264", let width = made.pixelWidth, let height = made.pixelHeight else {
            throw MediaError(.malformed, "Transcoding \(name) did not give an H.264 MP4")
        }
        if let bound = derivative.shortSide, min(width, height) > bound {
            throw MediaError(.malformed, "Transcoding \(name) gave \(width)×\(height), larger than \(bound)p")
        }
        if let expected = original.duration, let got = made.duration, abs(expected - got) > max(0.5, expected * 0.05) {
            throw MediaError(.malformed, "Transcoding \(name) gave \(got) s of its \(expected) s")
        }
    }
}

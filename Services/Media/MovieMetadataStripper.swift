import Foundation
import LightboxProtocol

/// Writes a copy of a movie without its location, or without any metadata, by remuxing it with
/// ffmpeg: the audio and video samples are copied byte for byte (`-c copy`), the container is
/// written anew. That is what makes it thorough: ffmpeg builds the new `moov` from its own
/// dictionaries, so no atom of the original's `udta` or `meta` (`©xyz`,
/// `com.apple.quicktime.location.ISO6709`, GPS in vendor boxes) can ride along unseen. All
/// metadata is dropped (`-map_metadata -1`) and only what is kept is written back:
///
/// - `.location` keeps the creation date, make and model; `.all` keeps none of them.
/// - `.approximateLocation` keeps what `.location` keeps and writes the position on the
///   approximate grid back, without altitude, as Apple's `com.apple.quicktime.location.ISO6709`
///   key (`mdta`; ffmpeg's plain `location` would become a 3GPP `loci` box in an MP4, which always
///   carries an altitude).
/// - Both keep the display matrix (rotation), which is stream side data and not metadata, so the
///   movie still shows upright; and the video and audio tracks. Subtitle, timecode and timed
///   metadata tracks (which can carry locations of their own) are dropped.
///
/// The copy is read back before it is accepted: the same container, codec, frame size, rotation
/// and duration, and no location (nor make, model or date for `.all`).
public enum MovieMetadataStripper {
    /// The headers are read (before and after) and a plain copy made on `blocking`. Throws only `MediaError`.
    public static func strip(_ what: MetadataStripping, from url: URL, to destination: URL,
                             blocking: any BlockingRunner = DedicatedThread()) async throws {
        try await strip(removing: MetadataRemoval(what), from: url, to: destination, blocking: blocking)
    }

    /// As `strip(_:from:to:blocking:)`, for any removal (an approximate location included).
    public static func strip(removing what: MetadataRemoval, from url: URL, to destination: URL,
                             blocking: any BlockingRunner = DedicatedThread()) async throws {
        let name = url.lastPathComponent
        let original = try await blocking.run { try MetadataReader.read(fileAt: url) }
        guard original.mediaType == .video else {
            throw MediaError(.unsupportedFormat, "\(name) is not a movie")
        }
        guard what != .none else {
            try await blocking.run {
                do {
                    try FileManager.default.copyItem(at: url, to: destination)
                } catch {
                    throw MediaError(.unwritable, "Cannot write \(destination.lastPathComponent): \(error.localizedDescription)")
                }
            }
            return
        }
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-i", url.path,
                         "-map", "0:v", "-map", "0:a?", "-c", "copy", "-map_metadata", "-1", "-map_chapters", "-1"]
        if what == .location || what == .approximateLocation {
            if let created = original.creationDate {
                arguments += ["-metadata", "creation_time=\(ISO8601DateFormatter().string(from: created))"]
            }
            if let make = original.cameraMake { arguments += ["-metadata", "make=\(make)"] }
            if let model = original.cameraModel { arguments += ["-metadata", "model=\(model)"] }
            if what == .approximateLocation, let location = original.location,
               let approximate = GeoLocation(latitude: LocationAccess.approximate(location.latitude),
                                             longitude: LocationAccess.approximate(location.longitude)) {
                arguments += ["-movflags", "use_metadata_tags", "-metadata", "com.apple.quicktime.location.ISO6709=\(approximate.iso6709)"]
            }
        } else {
            // Without this, ffmpeg writes its own name and version as the encoder.
            arguments += ["-fflags", "+bitexact"]
        }
        arguments += ["-f", original.type == .quickTimeMovie ? "mov" : "mp4", "-y", destination.path]
        try await FFmpegProcess.run(arguments, budget: .forMovie(lasting: original.duration))
        try await blocking.run {
            do throws(MediaError) {
                try verify(destination, against: original, what, name: name)
            } catch {
                try? FileManager.default.removeItem(at: destination)
                throw error
            }
        }
    }

    static func verify(_ copy: URL, against original: MediaMetadata, _ what: MetadataRemoval, name: String) throws(MediaError) {
        let result: MediaMetadata
        do throws(MediaError) {
            result = try MetadataReader.read(FileBytes(copy))
        } catch {
            throw MediaError(.malformed, "Removing metadata from \(name) left a file that does not read back (\(error.message))")
        }
        guard result.type == original.type, result.codec == original.codec, result.pixelWidth == original.pixelWidth,
              result.pixelHeight == original.pixelHeight, (result.rotation ?? 0) == (original.rotation ?? 0) else {
            throw MediaError(.malformed, "Removing metadata from \(name) changed the movie; the copy was not kept")
        }
        if let before = original.duration, let after = result.duration, abs(before - after) > 0.1 {
            throw MediaError(.malformed, "Removing metadata from \(name) changed its length; the copy was not kept")
        }
        var leftovers: [String] = []
        if let location = result.location, !MetadataRemoval.isApproximation(location, of: original.location, what) {
            leftovers.append("its location")
        }
        if what == .all, result.cameraMake != nil || result.cameraModel != nil || result.creationDate != nil {
            leftovers.append("its camera and date")
        }
        guard leftovers.isEmpty else {
            throw MediaError(.malformed, "Lightbox could not remove \(leftovers.joined(separator: " and ")) from \(name); the copy was not kept")
        }
    }
}

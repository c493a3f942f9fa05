import Foundation
import LightboxProtocol

/// The way into each media reader for the fuzzers (Fuzz/) and for the replay of their findings in
/// the tests, so both run exactly the same code. Never throws: a `MediaError` is the expected
/// answer to bad bytes; a fuzzer looks only for crashes, leaks and hangs. Returns whether the
/// reader accepted the input, so the tests can show the samples really reach each reader.
///
/// The readers take a file, so the input is written to one scratch file per process first; each
/// reader is called directly (not through the content sniffer) so every one of them sees every input.
public enum MediaFuzzEntry {
    public enum Target: String, CaseIterable, Sendable {
        case jpeg, png, webp, gif, heif, movie, exif
        /// `MotionPhotoReader`: whether a still carries a movie, and where.
        case motion
        /// `MetadataStripper.strip` as deliveries use it; the input's first byte chooses what goes.
        case strip
    }

    @discardableResult
    public static func run(_ target: Target, on input: Data) -> Bool {
        switch target {
        case .exif:
            _ = EXIFReader.tags(inTIFF: input)
            return EXIFReader.tags(inBlock: input) != EXIFTags()
        case .strip:
            guard let selector = input.first else { return false }
            let what: MetadataRemoval = [.location, .all, .approximateLocation][Int(selector) % 3]
            let source = scratch.appendingPathComponent("strip-input")
            let destination = scratch.appendingPathComponent("strip-output")
            defer {
                try? FileManager.default.removeItem(at: source)
                try? FileManager.default.removeItem(at: destination)
            }
            guard (try? input.dropFirst().write(to: source)) != nil else { return false }
            return (try? MetadataStripper.stripTyped(what, from: source, to: destination)) != nil
        default:
            let url = scratch.appendingPathComponent("input")
            defer { try? FileManager.default.removeItem(at: url) }
            guard (try? input.write(to: url)) != nil, let file = try? FileBytes(url) else { return false }
            switch target {
            case .jpeg: return (try? JPEGReader.read(file)) != nil
            case .png: return (try? PNGReader.read(file)) != nil
            case .webp: return (try? WebPReader.read(file)) != nil
            case .gif: return (try? GIFReader.read(file)) != nil
            case .heif: return (try? HEIFReader.read(file)) != nil
            case .movie: return (try? MovieReader.read(file, type: .mpeg4Movie)) != nil
            case .motion:
                guard case .motionPhoto? = try? MotionPhotoReader.find(file) else { return false }
                return true
            case .exif, .strip: return false
            }
        }
    }

    /// A folder of this process's own (in memory where /dev/shm exists: millions of writes).
    private static let scratch: URL = {
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("lightbox-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()
}

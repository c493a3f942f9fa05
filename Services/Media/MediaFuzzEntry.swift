import Foundation
import LightboxProtocol

/// The way into each media reader for the fuzzers (Fuzz/) and for the replay of their findings in
/// the tests, so both run exactly the same code. Never throws: a `MediaError` is the expected
/// answer to bad bytes; a fuzzer looks only for crashes, leaks and hangs.
///
/// The readers take a file, so the input is written to one scratch file per process first; each
/// reader is called directly (not through the content sniffer) so every one of them sees every input.
public enum MediaFuzzEntry {
    public enum Target: String, CaseIterable, Sendable {
        case jpeg, png, webp, gif, heif, movie, exif
        /// `MetadataStripper.strip` as deliveries use it; the input's first byte chooses what goes.
        case strip
    }

    public static func run(_ target: Target, on input: Data) {
        switch target {
        case .exif:
            _ = EXIFReader.tags(inBlock: input)
            _ = EXIFReader.tags(inTIFF: input)
        case .strip:
            guard let selector = input.first else { return }
            let what: MetadataStripping = selector & 1 == 0 ? .location : .all
            let source = scratch.appendingPathComponent("strip-input")
            let destination = scratch.appendingPathComponent("strip-output")
            defer {
                try? FileManager.default.removeItem(at: source)
                try? FileManager.default.removeItem(at: destination)
            }
            guard (try? input.dropFirst().write(to: source)) != nil else { return }
            try? MetadataStripper.stripTyped(what, from: source, to: destination)
        default:
            let url = scratch.appendingPathComponent("input")
            defer { try? FileManager.default.removeItem(at: url) }
            guard (try? input.write(to: url)) != nil, let file = try? FileBytes(url) else { return }
            switch target {
            case .jpeg: _ = try? JPEGReader.read(file)
            case .png: _ = try? PNGReader.read(file)
            case .webp: _ = try? WebPReader.read(file)
            case .gif: _ = try? GIFReader.read(file)
            case .heif: _ = try? HEIFReader.read(file)
            case .movie:
                _ = try? MovieReader.read(file, type: .mpeg4Movie)
            default: break
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

import Foundation
import LightboxProtocol

/// Reads `MediaMetadata` from any file Lightbox can import: the type comes from the content, then
/// the reader for that format takes over. Nothing here decodes pixels, and a broken file gives a
/// `MediaError` naming it.
public enum MetadataReader {
    /// Throws only `MediaError`. Declared untyped on purpose: Swift 6.3's compiler crashes on callers
    /// that write `catch let error as MediaError` around a typed-throws call.
    public static func read(fileAt url: URL) throws -> MediaMetadata {
        try read(FileBytes(url))
    }

    /// The same for a file whose whole contents were just read (a cached thumbnail on its way
    /// out): the parsers read from memory. Throws only `MediaError`.
    public static func read(fileAt url: URL, contents: Data) throws -> MediaMetadata {
        try read(FileBytes(url, contents: contents))
    }

    static func read(_ file: FileBytes) throws(MediaError) -> MediaMetadata {
        let name = file.url.lastPathComponent
        guard file.size > 0 else { throw MediaError(.malformed, "\(name) is empty") }
        guard let type = ContentSniffer.sniff(try file.read(at: 0, count: ContentSniffer.headerLength)) else {
            throw MediaError(.unsupportedFormat, "\(name) is not JPEG, PNG, HEIC, WebP, GIF, MP4 or MOV")
        }
        switch type {
        case .jpeg: return try JPEGReader.read(file)
        case .png: return try PNGReader.read(file)
        case .gif: return try GIFReader.read(file)
        case .webP: return try WebPReader.read(file)
        case .heic: return try HEIFReader.read(file)
        default: return try MovieReader.read(file, type: type)
        }
    }
}

import Foundation
import LightboxProtocol

/// Tells a file's type from its first bytes, never from its name.
public enum ContentSniffer {
    /// How many leading bytes `sniff` needs.
    public static let headerLength = 32

    static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
    static let mpeg4Brands: Set<String> = ["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "dash", "mp71", "3gp4", "3gp5", "f4v "]

    public static func sniff(_ header: Data) -> UTType? {
        let bytes = [UInt8](header.prefix(headerLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webP }
        if bytes.count >= 12, starts(Array("ftyp".utf8), at: 4) {
            let major = String(decoding: bytes[8..<12], as: UTF8.self)
            if heicBrands.contains(major) { return .heic }
            if major == "qt  " { return .quickTimeMovie }
            if mpeg4Brands.contains(major) || major.hasPrefix("mp4") { return .mpeg4Movie }
            return nil
        }
        // Old QuickTime files start straight with an atom.
        if bytes.count >= 8, ["moov", "mdat", "wide", "free", "skip"].contains(String(decoding: bytes[4..<8], as: UTF8.self)) {
            return .quickTimeMovie
        }
        return nil
    }

    /// Throws only `MediaError` (untyped for the same reason as `MetadataReader.read(fileAt:)`).
    public static func sniff(fileAt url: URL) throws -> UTType? {
        try sniff(FileBytes(url).read(at: 0, count: headerLength))
    }
}

import Foundation

/// The one fact Lightbox reads from Apple's EXIF MakerNote: the ContentIdentifier (tag 0x0011) that
/// ties a Live Photo's still to its movie. The note is `Apple iOS\0`, a 2-byte version, `MM`, then
/// a big-endian IFD whose value offsets count from the note's first byte.
enum AppleMakerNote {
    static let signature = Data("Apple iOS\0".utf8)
    static let contentIdentifierTag: UInt16 = 0x0011

    static func contentIdentifier(in note: Data) -> String? {
        let bytes = [UInt8](note)
        guard note.starts(with: signature), bytes.count >= 16, bytes[12] == 0x4D, bytes[13] == 0x4D else { return nil }
        func uint16(_ at: Int) -> Int? { at + 2 <= bytes.count ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : nil }
        func uint32(_ at: Int) -> Int? {
            at + 4 <= bytes.count ? Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) : nil
        }
        guard let count = uint16(14) else { return nil }
        for index in 0..<count {
            let entry = 16 + index * 12
            guard let tag = uint16(entry), let format = uint16(entry + 2), let length = uint32(entry + 4) else { return nil }
            guard tag == contentIdentifierTag, format == 2, length > 0, length < 1024 else { continue }  // ASCII
            let start = length <= 4 ? entry + 8 : (uint32(entry + 8) ?? bytes.count)
            guard start + length <= bytes.count else { return nil }
            let text = String(decoding: bytes[start..<(start + length)].prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? nil : text
        }
        return nil
    }
}

import Foundation

/// The description of an ICC profile (its `desc` tag), which ImageIO reports as `ProfileName`:
/// ASCII in version 2 profiles (`desc` type), UTF-16 in version 4 (`mluc` type, first record).
enum ICCProfileDescription {
    /// nil when the profile is too short, has no `desc` tag, or the tag points outside the profile.
    static func read(_ profile: Data) -> String? {
        let bytes = [UInt8](profile)
        func uint32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        guard let tagCount = uint32(128), tagCount < 1024 else { return nil }
        for index in 0..<tagCount {
            let entry = 132 + index * 12
            guard let signature = uint32(entry), let offset = uint32(entry + 4), let size = uint32(entry + 8) else { return nil }
            guard signature == 0x6465_7363,  // "desc"
                  size >= 12, offset + size <= bytes.count, let type = uint32(offset) else { continue }
            let tag = Array(bytes[offset..<(offset + size)])
            if type == 0x6465_7363, let length = uint32(offset + 8), 12 + length <= size {  // "desc": ASCII
                let text = tag[12..<(12 + length)].prefix { $0 != 0 }
                return clean(String(decoding: text, as: UTF8.self))
            }
            if type == 0x6D6C_7563, let records = uint32(offset + 8), records > 0,  // "mluc": UTF-16BE
               let length = uint32(offset + 20), let start = uint32(offset + 24), start + length <= size {
                var units: [UInt16] = []
                var at = start
                while at + 1 < start + length {
                    units.append(UInt16(tag[at]) << 8 | UInt16(tag[at + 1]))
                    at += 2
                }
                return clean(String(decoding: units.prefix { $0 != 0 }, as: UTF16.self))
            }
        }
        return nil
    }

    private static func clean(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}

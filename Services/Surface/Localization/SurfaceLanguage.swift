import Foundation

/// The language a page is written in, chosen from the browser's `Accept-Language`: Simplified
/// Chinese when the browser prefers Chinese written in simplified characters, English otherwise.
enum SurfaceLanguage: String, CaseIterable, Sendable {
    case english = "en"
    case simplifiedChinese = "zh-CN"

    /// The first language of the header (by its q-values) the surface speaks; English when none.
    init(acceptLanguage header: String?) {
        let ranked = (header ?? "").split(separator: ",").enumerated().compactMap { index, item -> (tag: String, q: Double, index: Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty else { return nil }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag.lowercased(), q, index)
        }.filter { $0.q > 0 }.sorted { $0.q != $1.q ? $0.q > $1.q : $0.index < $1.index }
        for entry in ranked {
            if let language = Self.matching(entry.tag) {
                self = language
                return
            }
        }
        self = .english
    }

    private static func matching(_ tag: String) -> SurfaceLanguage? {
        if tag == "en" || tag.hasPrefix("en-") { return .english }
        guard tag == "zh" || tag.hasPrefix("zh-") else { return nil }
        // Traditional characters (Taiwan, Hong Kong, Macau) are not Simplified Chinese.
        let traditional = ["zh-hant", "zh-tw", "zh-hk", "zh-mo"].contains { tag.hasPrefix($0) }
        return traditional ? nil : .simplifiedChinese
    }

    /// The BCP 47 tag for `<html lang>` and the page script's `Intl` formats.
    var tag: String { rawValue }
}

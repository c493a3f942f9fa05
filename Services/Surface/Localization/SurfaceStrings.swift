import Foundation

/// Every user-visible sentence of the surface — its Swift-rendered pages and its page scripts — in
/// the page's language. The English text is the key (as gettext does); each other language has one
/// table from that text to its own, a JSON file in Strings/ (`zh-CN.json`). `{name}` marks a value filled in.
/// The page scripts get the same table as JSON in the page (`<script type="application/json">`,
/// which the CSP allows: it is data, never run).
struct SurfaceStrings: Sendable {
    let language: SurfaceLanguage

    static let english = SurfaceStrings(language: .english)

    var table: [String: String] {
        switch language {
        case .english: [:]
        case .simplifiedChinese: Self.simplifiedChinese
        }
    }

    static let simplifiedChinese = load("zh-CN")

    /// A language's table from the bundle; empty (English) if it is missing, which a test rules out.
    static func load(_ tag: String) -> [String: String] {
        guard let folder = Bundle.module.url(forResource: "Strings", withExtension: nil),
              let data = FileManager.default.contents(atPath: folder.appendingPathComponent(tag + ".json").path),
              let table = try? JSONDecoder().decode([String: String].self, from: data) else { return [:] }
        return table
    }

    /// `text` in the page's language, with each `{name}` replaced by `values[name]`.
    func callAsFunction(_ text: String, _ values: [String: String] = [:]) -> String {
        var result = table[text] ?? text
        for (name, value) in values { result = result.replacingOccurrences(of: "{\(name)}", with: value) }
        return result
    }

    /// One item or many: "1 item" / "{count} items" (Chinese has one form for both).
    func count(_ count: Int, one: String, many: String) -> String {
        self(count == 1 ? one : many, ["count": "\(count)"])
    }

    /// The table as the page scripts read it.
    var json: String {
        let data = (try? JSONSerialization.data(withJSONObject: table, options: [.sortedKeys])) ?? Data("{}".utf8)
        // Inside a <script> element: "</" could end it early.
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
    }
}

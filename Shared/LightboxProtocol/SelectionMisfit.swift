import Foundation

/// Why a pick's `SelectionLimits` leave an asset out: which limit it misses, its own value and the
/// limit's, and the reason in words. `owner.assets` sends one with each asset of a pick's page
/// that does not fit (`AssetSummary.unavailable`), and the sheet shows that asset disabled with
/// the reason; `owner.choose` refuses it with the same words.
public struct SelectionMisfit: Codable, Hashable, Sendable {
    public enum Limit: String, Codable, Sendable, CaseIterable {
        case mediaTypes, maxFileSize, minPixels, maxPixels, maxDuration
    }

    public var limit: Limit
    /// The asset's value: bytes, the shorter side (`minPixels`) or the longer side (`maxPixels`)
    /// in pixels, seconds; nil for `mediaTypes` and when the library does not know it.
    public var actual: Double?
    /// The limit's value, in the same unit; nil for `mediaTypes`.
    public var allowed: Double?
    /// In English, for the owner ("Too large for Postcard Maker: 48 MB of 20 MB"). The owner's
    /// surface says it in the page's language (`SelectionLimits.reason`).
    public var reason: String

    public init(limit: Limit, actual: Double?, allowed: Double?, reason: String) {
        self.limit = limit
        self.actual = actual
        self.allowed = allowed
        self.reason = reason
    }

    /// Says a sentence with `{name}` values filled in, in some language (the sentence in English is the key).
    public typealias Wording = @Sendable (_ text: String, _ values: [String: String]) -> String

    public static let english: Wording = { text, values in
        values.reduce(text) { result, value in result.replacingOccurrences(of: "{\(value.key)}", with: value.value) }
    }

    /// Both values in words; when they would read the same ("20 MB of 20 MB") each is said
    /// precisely, so the reason always shows the difference.
    static func apart(_ actual: Double, _ allowed: Double, _ format: (Double, Bool) -> String) -> (String, String) {
        let rounded = (format(actual, false), format(allowed, false))
        return rounded.0 == rounded.1 ? (format(actual, true), format(allowed, true)) : rounded
    }

    /// Bytes in decimal units as file managers show them: "31.9 KB", "48 MB"; `precise`: every byte.
    static func bytes(_ count: Double, precise: Bool) -> String {
        let units = ["KB", "MB", "GB", "TB"]
        guard !precise, count >= 1000 else { return "\(Int64(count)) " + (count == 1 ? "byte" : "bytes") }
        var value = count / 1000, unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return number(value) + " " + units[unit]
    }

    /// Seconds as a clock shows a video's length: "2:10", "1:02:03"; `precise`: with tenths, "1:00.4".
    static func duration(_ seconds: Double, precise: Bool) -> String {
        let tenths = Int((seconds * 10).rounded(.up))
        let whole = precise ? tenths / 10 : Int(seconds.rounded())
        let clock = whole >= 3600
            ? "\(whole / 3600):" + twoDigits((whole / 60) % 60) + ":" + twoDigits(whole % 60)
            : "\(whole / 60):" + twoDigits(whole % 60)
        return precise ? clock + ".\(tenths % 10)" : clock
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// One decimal below 100, none from there and none when it is .0: "31.9", "48", "250".
    private static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        guard value < 100, tenths.truncatingRemainder(dividingBy: 10) != 0 else { return "\(Int64(value.rounded()))" }
        return "\(Int64(tenths) / 10).\(Int64(tenths) % 10)"
    }
}

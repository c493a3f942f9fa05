import Foundation

/// File names as the library stores and delivers them: a name an app (or the owner's CLI) can save
/// a file under without being steered elsewhere or fooled. Names come from apps (`library.create`)
/// and from the owner's folders, and reach other apps as `suggestedName`; lightbox-portal applies
/// them again to the files it delivers.
public enum SafeFileName {
    /// Longest name in UTF-8 bytes, the limit of most file systems.
    public static let maximumBytes = 255
    /// An extension longer than this is treated as part of the name when shortening.
    public static let maximumExtensionBytes = 16

    /// `name` reduced to a safe base name: only what follows the last `/` or `\`; no control,
    /// format (bidirectional overrides and the like) or line-separator characters; no leading
    /// dots (which hide files, or make `.` and `..`) or surrounding spaces; at most `maximumBytes`
    /// UTF-8 bytes, shortened before the extension so the extension stays. `fallback` when nothing
    /// is left.
    public static func make(_ name: String, fallback: String = "asset") -> String {
        if isPlainlySafe(name) { return name }
        let base = name.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in base.unicodeScalars where !isUnsafe(scalar) { scalars.append(scalar) }
        var cleaned = String(scalars).trimmingCharacters(in: .whitespaces)
        cleaned = String(cleaned.drop { $0 == "." || $0 == " " })
        guard !cleaned.isEmpty else { return fallback == name ? "asset" : make(fallback) }
        return shortened(cleaned)
    }

    /// The common case, checked byte by byte (names are made safe when stored, and every summary
    /// checks again): printable ASCII without separators, not starting with a dot or space, not
    /// ending in a space, short enough. `make` would return such a name unchanged.
    private static func isPlainlySafe(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= maximumBytes,
              first != UInt8(ascii: "."), first != UInt8(ascii: " "), last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
        default: false
        }
    }

    /// At most `maximumBytes`, cut on a character boundary before the extension.
    private static func shortened(_ name: String) -> String {
        guard name.utf8.count > maximumBytes else { return name }
        var stem = name
        var suffix = ""
        if let dot = name.lastIndex(of: "."), name.utf8.distance(from: dot, to: name.endIndex) <= maximumExtensionBytes + 1 {
            stem = String(name[..<dot])
            suffix = String(name[dot...])
        }
        let budget = maximumBytes - suffix.utf8.count
        var kept = ""
        var used = 0
        for character in stem {
            let size = character.utf8.count
            guard used + size <= budget else { break }
            kept.append(character)
            used += size
        }
        return kept + suffix
    }
}

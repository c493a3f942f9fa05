import Foundation

/// The shared media corpus (`<repo root>/../shared/media`, MANIFEST.tsv): real files from public
/// test suites with values read back by exiftool, ffprobe, gifsicle and libwebp's tools. CI clones
/// the repository with `shared/` beside it; elsewhere the corpus may be absent and its tests skip.
enum MediaCorpus {
    /// `LIGHTBOX_MEDIA_CORPUS` names it where it is not beside the repository (a git worktree).
    static let folder = ProcessInfo.processInfo.environment["LIGHTBOX_MEDIA_CORPUS"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/media").standardizedFileURL

    static var manifest: URL { folder.appendingPathComponent("MANIFEST.tsv") }

    static var isPresent: Bool { FileManager.default.fileExists(atPath: manifest.path) }

    /// One MANIFEST row: its path, category, and the columns by header name (empty = not stated).
    struct Row: Sendable, CustomStringConvertible {
        var path: String
        var category: String
        var columns: [String: String]

        subscript(column: String) -> String? {
            let value = columns[column] ?? ""
            return value.isEmpty ? nil : value
        }

        var isMalformed: Bool { category.hasPrefix("malformed") }

        /// Malformed files the reference tools could not size either: these must give a MediaError.
        /// Malformed files whose MANIFEST row has values (EXIF that trips one parser, a truncated
        /// scan after an intact header) are photos a library must still import, and are scored.
        var mustFail: Bool { isMalformed && self["width"] == nil }

        var description: String { path }
    }

    static func rows() throws -> [Row] {
        let lines = try String(contentsOf: manifest, encoding: .utf8).split(whereSeparator: \.isNewline)
        guard let header = lines.first else { return [] }
        let names = fields(header)
        return lines.dropFirst().map { line in
            let values = fields(line)
            var columns: [String: String] = [:]
            for (index, name) in names.enumerated() where index < values.count { columns[name] = values[index] }
            return Row(path: columns["path"] ?? "", category: columns["category"] ?? "", columns: columns)
        }
    }

    /// Tab-separated fields; a field in double quotes has its doubled quotes unescaped.
    private static func fields(_ line: Substring) -> [String] {
        line.split(separator: "\t", omittingEmptySubsequences: false).map { field in
            guard field.count >= 2, field.first == "\"", field.last == "\"" else { return String(field) }
            return field.dropFirst().dropLast().replacingOccurrences(of: "\"\"", with: "\"")
        }
    }
}

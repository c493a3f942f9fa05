import Foundation
import LightboxProtocol

/// Desktop apps' names from their desktop files: `Name=` (in the person's language when the file
/// has it) of `<app id>.desktop` in the `applications` folders of XDG_DATA_HOME and XDG_DATA_DIRS,
/// and of Flatpak's exports for the user and the system (usually in XDG_DATA_DIRS already).
struct DesktopEntryNames: Sendable {
    /// The folders looked in, first found wins.
    let folders: [URL]
    /// Locale names to prefer (`de_DE`, `de`), most specific first.
    let languages: [String]

    /// The largest desktop file read; real ones are a few kilobytes.
    static let maximumFileSize = 256 * 1024

    init(folders: [URL], languages: [String] = []) {
        self.folders = folders
        self.languages = languages
    }

    /// The folders and language of this session's environment.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? home.appendingPathComponent(".local/share")
        let dataDirectories = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").filter { $0.hasPrefix("/") }.map { URL(fileURLWithPath: String($0)) }
        var folders: [URL] = []
        for share in [dataHome, dataHome.appendingPathComponent("flatpak/exports/share")] + dataDirectories
            + [URL(fileURLWithPath: "/var/lib/flatpak/exports/share")] {
            let folder = share.appendingPathComponent("applications").standardizedFileURL
            if !folders.contains(folder) { folders.append(folder) }
        }
        self.init(folders: folders, languages: Self.languages(environment))
    }

    /// `de_DE.UTF-8@euro` in LC_ALL, LC_MESSAGES or LANG → `de_DE@euro`, `de_DE`, `de@euro`, `de`, as
    /// the Desktop Entry Specification matches `Name[…]`.
    static func languages(_ environment: [String: String]) -> [String] {
        guard let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }),
              locale != "C", locale != "POSIX" else { return [] }
        var rest = Substring(locale)
        var modifier = ""
        if let at = rest.firstIndex(of: "@") {
            modifier = String(rest[at...])
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") { rest = rest[..<dot] }
        let language = rest.split(separator: "_").first.map(String.init) ?? String(rest)
        let country = rest.contains("_") ? String(rest) : nil
        var names: [String] = []
        if let country, !modifier.isEmpty { names.append(country + modifier) }
        if let country { names.append(country) }
        if !modifier.isEmpty { names.append(language + modifier) }
        names.append(language)
        return names
    }

    /// The name of `app`'s desktop file, if one is found; nil for an app without an id.
    func name(of app: DesktopAppID) -> String? {
        guard !app.rawValue.isEmpty else { return nil }
        for folder in folders {
            // The id is a checked app id (letters, digits, dots, dashes, underscores): a plain file name.
            let file = folder.appendingPathComponent(app.rawValue + ".desktop")
            guard let text = Self.read(file), let name = Self.name(inDesktopEntry: text, languages: languages) else { continue }
            return DesktopAppID.displayName(name)
        }
        return nil
    }

    /// A regular file (Flatpak's exports are symbolic links to one) of reasonable size, as UTF-8.
    static func read(_ file: URL) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = attributes[.size] as? Int, size <= maximumFileSize,
              let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return String(data: data.prefix(maximumFileSize), encoding: .utf8)
    }

    /// `Name[language]` or `Name` of the `[Desktop Entry]` group, unescaped.
    static func name(inDesktopEntry text: String, languages: [String] = []) -> String? {
        var inEntry = false
        var names: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                inEntry = line == "[Desktop Entry]"
                continue
            }
            guard inEntry, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard key == "Name" || key.hasPrefix("Name[") else { continue }
            let value = unescape(line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            if names[key] == nil { names[key] = value }
        }
        for language in languages {
            if let name = names["Name[\(language)]"], !name.isEmpty { return name }
        }
        return names["Name"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The escapes of a desktop entry's string values: `\s`, `\n`, `\t`, `\r`, `\\`.
    static func unescape(_ value: String) -> String {
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                switch character {
                case "s": result.append(" ")
                case "n", "t", "r": result.append(" ")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

import Foundation
import LightboxProtocol

/// The command that shows a web address to the person at this desktop: `xdg-open` by default, or
/// what `--open-command` / `LIGHTBOX_SURFACE_OPEN_COMMAND` says, such as `chromium --app=%u`.
///
/// The text is split into words (spaces separate them; single or double quotes keep one word
/// whole); `%u` in a word is replaced by the address, else the address is added as the last word.
/// It runs without a shell, the program found on PATH, so an address is never read as shell syntax.
public struct DesktopOpenCommand: Sendable, Equatable {
    /// The environment variable lightbox-surface and `lightbox user login --open` read.
    public static let environment = "LIGHTBOX_SURFACE_OPEN_COMMAND"
    public static let defaultText = "xdg-open"
    /// The word that turns opening off.
    public static let disabled = "none"

    /// The program, then its arguments.
    public let words: [String]

    /// The command `text` names, or nil for `none`; an empty text or an unclosed quote is refused.
    public static func parse(_ text: String) throws(LightboxError) -> DesktopOpenCommand? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == disabled { return nil }
        guard let words = split(trimmed), let program = words.first, !program.isEmpty else {
            throw LightboxError(.badRequest, "The open command \"\(text)\" is not one: give a program and its arguments, "
                                + "such as xdg-open or \"chromium --app=%u\" (quotes keep a word with spaces whole), or none.")
        }
        return DesktopOpenCommand(words: words)
    }

    /// The command from `--open-command` when given, else from the environment, else `xdg-open`.
    public static func configured(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(LightboxError) -> DesktopOpenCommand? {
        try parse(option ?? environment[Self.environment] ?? defaultText)
    }

    /// The program's arguments for `address`.
    public func arguments(opening address: String) -> [String] {
        let rest = words.dropFirst()
        guard rest.contains(where: { $0.contains("%u") }) else { return rest + [address] }
        return rest.map { $0.replacingOccurrences(of: "%u", with: address) }
    }

    /// Starts the command for `address` and returns at once; the process is reaped when it ends.
    /// Its output goes where this process's goes (the journal, under systemd).
    @discardableResult
    public func open(_ address: String) throws(LightboxError) -> Process {
        let process = Process()
        // env finds the program on PATH and execs it: no shell sees the address.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--", words[0]] + arguments(opening: address)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw LightboxError(.internal, "Could not start \(words[0]) to open the pick sheet; check the open command.", cause: error)
        }
        return process
    }

    /// Words separated by spaces; quotes group. Nil when a quote is left open.
    static func split(_ text: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        guard quote == nil else { return nil }
        if inWord { words.append(word) }
        return words
    }
}

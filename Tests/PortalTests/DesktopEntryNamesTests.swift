import Foundation
import LightboxProtocol
import Testing
@testable import Portal

/// The sheet names a desktop app by its desktop file.
@Suite struct DesktopEntryNamesTests {
    @Test func nameInThePersonsLanguageFirst() {
        let entry = """
            [Desktop Entry]
            Type=Application
            Name=Image Viewer
            Name[de]=Bildbetrachter
            Name[de_AT]=Bildanzeige
            # Name=commented
            [Desktop Action new-window]
            Name=New Window
            """
        #expect(DesktopEntryNames.name(inDesktopEntry: entry) == "Image Viewer")
        #expect(DesktopEntryNames.name(inDesktopEntry: entry, languages: ["de_DE", "de"]) == "Bildbetrachter")
        #expect(DesktopEntryNames.name(inDesktopEntry: entry, languages: ["de_AT", "de"]) == "Bildanzeige")
        #expect(DesktopEntryNames.name(inDesktopEntry: "[Desktop Action x]\nName=Not this") == nil)
        #expect(DesktopEntryNames.name(inDesktopEntry: "[Desktop Entry]\nName=Two\\sWords\\nand more") == "Two Words and more")
    }

    @Test func languagesFromTheLocale() {
        #expect(DesktopEntryNames.languages(["LANG": "de_DE.UTF-8"]) == ["de_DE", "de"])
        #expect(DesktopEntryNames.languages(["LC_ALL": "sr_RS.UTF-8@latin", "LANG": "en_US"]) == ["sr_RS@latin", "sr_RS", "sr@latin", "sr"])
        #expect(DesktopEntryNames.languages(["LANG": "C"]).isEmpty)
    }

    @Test func foldersFollowXDGAndFlatpak() {
        let names = DesktopEntryNames(environment: ["HOME": "/home/p", "XDG_DATA_DIRS": "/a/share:relative:/usr/share"])
        #expect(names.folders.map(\.path) == [
            "/home/p/.local/share/applications", "/home/p/.local/share/flatpak/exports/share/applications",
            "/a/share/applications", "/usr/share/applications", "/var/lib/flatpak/exports/share/applications",
        ])
    }

    @Test func theFirstFolderWithTheAppsFileNamesIt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let user = root.appendingPathComponent("user"), system = root.appendingPathComponent("system")
        for folder in [user, system] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try "[Desktop Entry]\nName=System Viewer\n".write(to: system.appendingPathComponent("org.example.Viewer.desktop"), atomically: true, encoding: .utf8)
        let names = DesktopEntryNames(folders: [user, system])
        #expect(names.name(of: try DesktopAppID(validating: "org.example.Viewer")) == "System Viewer")
        // Flatpak exports are links to the app's own file.
        try "[Desktop Entry]\nName=Mine\n".write(to: root.appendingPathComponent("real.desktop"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: user.appendingPathComponent("org.example.Viewer.desktop"),
                                                   withDestinationURL: root.appendingPathComponent("real.desktop"))
        #expect(names.name(of: try DesktopAppID(validating: "org.example.Viewer")) == "Mine")
        #expect(names.name(of: try DesktopAppID(validating: "org.example.Missing")) == nil)
        #expect(names.name(of: try DesktopAppID(validating: "")) == nil)
    }

    @Test func appIDsThatCouldBePathsAreRefused() {
        for id in ["../etc/passwd", "a/b", ".hidden", "-flag", "a..b", "a b", String(repeating: "a", count: 256), "é.x"] {
            #expect(throws: LightboxError.self) { try DesktopAppID(validating: id) }
        }
        #expect((try? DesktopAppID(validating: "org.gnome.Loupe"))?.filedAs == "portal:org.gnome.Loupe")
        #expect((try? DesktopAppID(validating: ""))?.filedAs == "portal:host")
        #expect(DesktopAppID(filedAs: "portal:host")?.rawValue == "")
        #expect(DesktopAppID(filedAs: "portal:org.gnome.Loupe")?.rawValue == "org.gnome.Loupe")
        #expect(DesktopAppID(filedAs: "demo") == nil)
        #expect(DesktopAppID(filedAs: "portal:../x") == nil)
    }

    @Test func displayNamesAreOneLineOfText() {
        #expect(DesktopAppID.displayName("  Image\tViewer\n") == "Image Viewer")
        #expect(DesktopAppID.displayName("Evil\u{202E}gpj.exe") == "Evilgpj.exe")
        #expect(DesktopAppID.displayName("\u{1}\u{2}") == nil)
        #expect(DesktopAppID.displayName(String(repeating: "x", count: 500))?.count == DesktopAppID.maximumNameLength)
    }
}

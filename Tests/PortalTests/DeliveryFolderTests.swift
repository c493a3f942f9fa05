import Foundation
import LightboxProtocol
import Testing
@testable import Portal

/// Delivered files: private whatever the umask, named safely, removed by revocation and retention.
@Suite(.serialized) struct DeliveryFolderTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-delivery-\(UUID().uuidString)")

    func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func foldersAndFilesArePrivateUnderAnyUmask() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let previous = umask(0)
        defer { umask(previous) }
        let folder = DeliveryFolder(root: root)
        try folder.prepare()
        let pick = try folder.makeFolder(for: try DesktopAppID(validating: "org.example.Viewer"), pick: "pick-abc")
        let (file, handle) = try folder.createFile(suggestedName: "harbour", type: .jpeg, in: pick)
        try handle.write(contentsOf: Data("jpeg".utf8))
        try handle.close()
        #expect(try mode(root) == 0o700)
        #expect(try mode(pick.deletingLastPathComponent()) == 0o700)
        #expect(try mode(pick) == 0o700)
        #expect(try mode(file) == 0o600)
        #expect(file.lastPathComponent == "harbour.jpg")
        #expect(pick.path == root.appendingPathComponent("org.example.Viewer/pick-abc").path)
    }

    @Test func namesAreSafeAndCarryTheDeliveredType() throws {
        #expect(DeliveryFolder.fileName("harbour", type: .jpeg) == "harbour.jpg")
        #expect(DeliveryFolder.fileName("IMG_0001.JPG", type: .jpeg) == "IMG_0001.JPG")
        #expect(DeliveryFolder.fileName("IMG_0001.HEIC", type: .jpeg) == "IMG_0001.jpg")
        #expect(DeliveryFolder.fileName("../../.bashrc", type: .png) == "bashrc.png")
        #expect(DeliveryFolder.fileName(nil, type: .mpeg4Movie) == "video.mp4")
        #expect(DeliveryFolder.fileName("my.holiday", type: .png) == "my.holiday.png")
    }

    @Test func sameNamesAreNumbered() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = DeliveryFolder(root: root)
        try folder.prepare()
        let pick = try folder.makeFolder(for: try DesktopAppID(validating: ""), pick: "pick-1")
        #expect(pick.deletingLastPathComponent().lastPathComponent == "host")
        let names = try (0..<3).map { _ in try folder.createFile(suggestedName: "a", type: .png, in: pick).0.lastPathComponent }
        #expect(names == ["a.png", "a 2.png", "a 3.png"])
    }

    @Test func pickNamesThatCouldBePathsAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = DeliveryFolder(root: root)
        try folder.prepare()
        let app = try DesktopAppID(validating: "org.example.Viewer")
        for pick in ["../x", "a/b", "", ".", String(repeating: "p", count: 65)] {
            #expect(throws: PortalError.self) { try folder.makeFolder(for: app, pick: pick) }
        }
    }

    @Test func aLinkInPlaceOfAnAppFolderIsNotFollowed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = DeliveryFolder(root: root)
        try folder.prepare()
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("org.example.Viewer"), withDestinationURL: elsewhere)
        #expect(throws: PortalError.self) { try folder.makeFolder(for: try DesktopAppID(validating: "org.example.Viewer"), pick: "pick-1") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    @Test func revocationAndRetentionRemovePicks() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = DeliveryFolder(root: root)
        try folder.prepare()
        let viewer = try DesktopAppID(validating: "org.example.Viewer"), editor = try DesktopAppID(validating: "org.example.Editor")
        let old = try folder.makeFolder(for: viewer, pick: "pick-old")
        let recent = try folder.makeFolder(for: viewer, pick: "pick-new")
        _ = try folder.makeFolder(for: editor, pick: "pick-1")
        // A day and a minute ago.
        var times = [timespec(tv_sec: time(nil) - 86_460, tv_nsec: 0), timespec(tv_sec: time(nil) - 86_460, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, old.path, &times, 0) == 0)
        #expect(folder.sweep(before: Date().addingTimeInterval(-86_400)) == 1)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: recent.path))
        // A pick that failed or was closed while its files were written leaves nothing behind; only
        // a pick's folder under the root is removed that way.
        let failed = try folder.makeFolder(for: editor, pick: "pick-failed")
        folder.remove(pickFolder: failed)
        #expect(!FileManager.default.fileExists(atPath: failed.path))
        folder.remove(pickFolder: folder.folder(of: editor))
        #expect(FileManager.default.fileExists(atPath: folder.folder(of: editor).path))
        #expect(folder.removeAll(of: viewer) == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.folder(of: viewer).path))
        #expect(FileManager.default.fileExists(atPath: folder.folder(of: editor).path))
    }

    @Test func retentionPeriods() {
        #expect(PortalService.Configuration.duration("24h") == .seconds(86_400))
        #expect(PortalService.Configuration.duration("90") == .seconds(90))
        #expect(PortalService.Configuration.duration("15m") == .seconds(900))
        #expect(PortalService.Configuration.duration("7d") == .seconds(604_800))
        for bad in ["", "h", "-5m", "0", "1w", "1.5h"] { #expect(PortalService.Configuration.duration(bad) == nil) }
    }
}

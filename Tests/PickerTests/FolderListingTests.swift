import Foundation
import LightboxProtocol
import Testing
@testable import Picker

/// The import's folder walk: regular, visible files at any depth, in path order, links not followed.
@Suite struct FolderListingTests {
    @Test func listsVisibleRegularFilesBelowTheFolderSortedByPath() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("listing-outside-\(UUID())")
        defer { try? FileManager.default.removeItem(at: outside) }
        let manager = FileManager.default
        for folder in ["b/inner", "a", ".hidden-folder", "empty", "c"] {
            try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        for file in ["z.jpg", "b/inner/deep.png", "a/one.gif", "a/two.webp", ".hidden.jpg", ".hidden-folder/x.jpg", "c/.also-hidden"] {
            try Data("x".utf8).write(to: root.appendingPathComponent(file))
        }
        try Data("y".utf8).write(to: outside.appendingPathComponent("elsewhere.jpg"))
        try manager.createSymbolicLink(at: root.appendingPathComponent("link.jpg"), withDestinationURL: root.appendingPathComponent("z.jpg"))
        try manager.createSymbolicLink(at: root.appendingPathComponent("linked-folder"), withDestinationURL: outside)
        #expect(mkfifo(root.appendingPathComponent("pipe").path, 0o600) == 0)

        let listed = try FolderListing.regularFiles(below: root).map { String($0.path.dropFirst(root.path.count + 1)) }
        #expect(listed == ["a/one.gif", "a/two.webp", "b/inner/deep.png", "z.jpg"])
        // What FileManager's enumerator (the walk this replaces) finds, for the same folder.
        var enumerated: [String] = []
        let enumerator = try #require(manager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]))
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            enumerated.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        #expect(listed == enumerated.sorted())
    }

    @Test func aMissingFolderIsRefusedWithAReason() {
        #expect(throws: LightboxError.self) { try FolderListing.regularFiles(below: URL(fileURLWithPath: "/nowhere/\(UUID())")) }
    }

    /// Links are not followed, so links to a parent, to themselves or into /proc list nothing and end.
    @Test func symbolicLinkLoopsAndLinksIntoTheKernelAreNotFollowed() throws {
        let root = try Self.folder(["a/photo.jpg", "b/c/photo.jpg"])
        defer { try? FileManager.default.removeItem(at: root) }
        for (name, target) in [("a/up", ".."), ("b/c/loop", "."), ("self", "self"), ("proc", "/proc/self"), ("pagemap.jpg", "/proc/self/pagemap")] {
            #expect(symlink(target, root.appendingPathComponent(name).path) == 0)
        }
        let listed = try FolderListing.regularFiles(below: root).map { String($0.path.dropFirst(root.path.count + 1)) }
        #expect(listed == ["a/photo.jpg", "b/c/photo.jpg"])
    }

    /// A folder mounted inside itself (a bind mount, which needs root) is walked once, known by its
    /// device and inode; /proc mounted inside is not entered.
    @Test func aFolderReachedTwiceIsWalkedOnceAndProcInsideIsSkipped() throws {
        let root = try Self.folder(["photo.jpg", "a/b/deep.jpg"])
        defer { try? FileManager.default.removeItem(at: root) }
        let loop = root.appendingPathComponent("a/b/loop")
        let proc = root.appendingPathComponent("proc")
        try FileManager.default.createDirectory(at: loop, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: proc, withIntermediateDirectories: true)
        guard Self.mount(["--bind", root.path, loop.path]) else {
            print("skipped: mount --bind is not permitted here (the walk's device+inode check is not exercised)")
            return
        }
        defer { _ = Self.mount([loop.path], command: "umount") }
        let procMounted = Self.mount(["-t", "proc", "proc", proc.path])
        defer { if procMounted { _ = Self.mount([proc.path], command: "umount") } }
        let listed = try FolderListing.regularFiles(below: root).map { String($0.path.dropFirst(root.path.count + 1)) }
        #expect(listed == ["a/b/deep.jpg", "photo.jpg"])
    }

    @Test func aTreeDeeperThanTheLimitIsRefusedWithAReason() throws {
        let root = try Self.folder([])
        defer { try? FileManager.default.removeItem(at: root) }
        let deep = (0...FolderListing.maximumDepth).map { _ in "d" }.joined(separator: "/")
        try FileManager.default.createDirectory(at: root.appendingPathComponent(deep), withIntermediateDirectories: true)
        #expect(throws: LightboxError.self) { try FolderListing.regularFiles(below: root) }
        let shallow = (1..<FolderListing.maximumDepth).map { _ in "d" }.joined(separator: "/")
        try Data("x".utf8).write(to: root.appendingPathComponent(shallow + "/photo.jpg"))
        try FileManager.default.removeItem(at: root.appendingPathComponent(shallow + "/d/d"))
        #expect(try FolderListing.regularFiles(below: root).count == 1)
    }

    static func folder(_ files: [String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for file in files {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        return root
    }

    static func mount(_ arguments: [String], command: String = "mount") -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

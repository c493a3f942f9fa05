import Foundation
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

        let listed = FolderListing.regularFiles(below: root).map { String($0.path.dropFirst(root.path.count + 1)) }
        #expect(listed == ["a/one.gif", "a/two.webp", "b/inner/deep.png", "z.jpg"])
        // What FileManager's enumerator (the walk this replaces) finds, for the same folder.
        var enumerated: [String] = []
        let enumerator = try #require(manager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]))
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            enumerated.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        #expect(listed == enumerated.sorted())
    }

    @Test func aMissingFolderListsNothing() {
        #expect(FolderListing.regularFiles(below: URL(fileURLWithPath: "/nowhere/\(UUID())")).isEmpty)
    }
}

/// Which names in a watched folder the picker passes over: hidden files and folders (a leading
/// dot, as `FolderListing` skips them), and the files browsers, editors and cameras write before
/// the real one exists (`photo.jpg.part`, `IMG_1.tmp`, `photo.jpg~`, `photo.jpg.crdownload`).
enum WatchedName {
    static let temporarySuffixes = [".part", ".tmp", "~", ".crdownload", ".partial", ".download"]

    static func isIgnored(_ name: String) -> Bool {
        if name.hasPrefix(".") { return true }
        let lowered = name.lowercased()
        return temporarySuffixes.contains { lowered.hasSuffix($0) }
    }

    /// Whether any part of `path` below `root` is ignored (a file inside a hidden folder, say).
    static func isIgnored(path: String, below root: String) -> Bool {
        path.dropFirst(root.count).split(separator: "/").contains { isIgnored(String($0)) }
    }
}

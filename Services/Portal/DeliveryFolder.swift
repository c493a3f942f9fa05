import Foundation
import LightboxProtocol

/// Where lightbox-portal writes what the owner picked for a desktop app, since a file chooser
/// backend answers with `file://` URIs: `ROOT/<app id>/<pick>/<name>` (`host` for an app without an
/// id). Folders are 0700 and files 0600 whatever the umask: only the person's own processes, and
/// through the Documents portal the app it was picked for, can read them. A pick's folder is
/// removed when the owner revokes its app, and once it is older than the retention period.
///
/// Nothing from a client becomes a path unchecked: the app id is a checked `DesktopAppID`, the pick
/// id must be a plain token, and names pass `SafeFileName`. Nothing is followed: a folder or file
/// in the way is never opened through a symbolic link.
struct DeliveryFolder: Sendable {
    let root: URL

    init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// Makes the root (and its parents) and holds it to 0700.
    func prepare() throws(PortalError) {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PortalError(.delivery, "Cannot make the delivery folder \(root.path).", cause: error)
        }
        try Self.makePrivateFolder(root)
    }

    /// The folder of one app's items.
    func folder(of app: DesktopAppID) -> URL {
        root.appendingPathComponent(app.rawValue.isEmpty ? DesktopAppID.unnamed : app.rawValue, isDirectory: true)
    }

    /// A new, empty folder for one pick of `app`.
    func makeFolder(for app: DesktopAppID, pick: String) throws(PortalError) -> URL {
        guard Self.isPlainToken(pick) else {
            throw PortalError(.delivery, "The picker named its pick \"\(pick.prefix(80))\", which is not a plain name.")
        }
        let appFolder = folder(of: app)
        try Self.makePrivateFolder(appFolder)
        let pickFolder = appFolder.appendingPathComponent(pick, isDirectory: true)
        guard mkdir(pickFolder.path, 0o700) == 0 else {
            throw PortalError(.delivery, "Cannot make \(pickFolder.path): \(String(cString: strerror(errno))).")
        }
        try Self.makePrivateFolder(pickFolder)
        return pickFolder
    }

    /// A new file for an item in `folder`: `name` made safe, with the extension of `type`, numbered
    /// when the pick already has a file of that name. Opened for writing, created 0600.
    func createFile(suggestedName: String?, type: UTType, in folder: URL) throws(PortalError) -> (URL, FileHandle) {
        let fileName = Self.fileName(suggestedName, type: type)
        let dot = fileName.lastIndex(of: ".") ?? fileName.endIndex
        let stem = fileName[..<dot], suffix = fileName[dot...]
        for number in 1...1000 {
            let candidate = number == 1 ? fileName : SafeFileName.make("\(stem) \(number)\(suffix)")
            let url = folder.appendingPathComponent(candidate)
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                // The mode exactly, whatever the umask took away or not.
                fchmod(descriptor, 0o600)
                return (url, FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
            }
            guard errno == EEXIST else {
                throw PortalError(.delivery, "Cannot create \(url.path): \(String(cString: strerror(errno))).")
            }
        }
        throw PortalError(.delivery, "The pick already has a thousand files named like \(fileName).")
    }

    /// The name a delivered item gets: its suggested name made safe, ending in its type's extension.
    static func fileName(_ suggestedName: String?, type: UTType) -> String {
        let fallback = type.isMovie ? "video" : "photo"
        var name = SafeFileName.make(suggestedName ?? fallback, fallback: fallback)
        if let fileExtension = type.preferredFilenameExtension {
            let current = (name as NSString).pathExtension
            if let named = UTType(filenameExtension: current) {
                // A name ending in the type's own extension keeps it (IMG_1.JPG, a.jpeg); a HEIC
                // delivered as JPEG trades its extension (IMG_1.HEIC → IMG_1.jpg).
                if named != type { name = SafeFileName.make((name as NSString).deletingPathExtension + "." + fileExtension) }
            } else {
                name = SafeFileName.make(name + "." + fileExtension)
            }
        }
        return name
    }

    /// Removes everything delivered to `app`; how many picks' folders went.
    @discardableResult
    func removeAll(of app: DesktopAppID) -> Int {
        let folder = folder(of: app)
        guard Self.isFolder(folder) else { return 0 }
        let picks = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).count) ?? 0
        try? FileManager.default.removeItem(at: folder)
        return picks
    }

    /// Removes one pick's folder (a pick that failed or was closed while its items were written).
    func remove(pickFolder: URL) {
        guard pickFolder.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path == root.path else { return }
        try? FileManager.default.removeItem(at: pickFolder)
    }

    /// Removes the picks' folders made before `cutoff`, and app folders left empty; how many picks went.
    @discardableResult
    func sweep(before cutoff: Date) -> Int {
        var removed = 0
        let manager = FileManager.default
        for app in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] {
            let appFolder = root.appendingPathComponent(app, isDirectory: true)
            guard Self.isFolder(appFolder) else { continue }
            for pick in (try? manager.contentsOfDirectory(atPath: appFolder.path)) ?? [] {
                let pickFolder = appFolder.appendingPathComponent(pick, isDirectory: true)
                guard let made = Self.modified(pickFolder), made < cutoff else { continue }
                if (try? manager.removeItem(at: pickFolder)) != nil { removed += 1 }
            }
            if ((try? manager.contentsOfDirectory(atPath: appFolder.path)) ?? ["?"]).isEmpty { try? manager.removeItem(at: appFolder) }
        }
        return removed
    }

    // MARK: Helpers

    /// Makes `folder` if it is not there, then holds it to 0700; a symbolic link or a file in its
    /// place is refused.
    static func makePrivateFolder(_ folder: URL) throws(PortalError) {
        if mkdir(folder.path, 0o700) != 0, errno != EEXIST {
            throw PortalError(.delivery, "Cannot make \(folder.path): \(String(cString: strerror(errno))).")
        }
        guard isFolder(folder) else {
            throw PortalError(.delivery, "\(folder.path) is not a folder (a link or a file is in its place); remove it.")
        }
        guard chmod(folder.path, 0o700) == 0 else {
            throw PortalError(.delivery, "Cannot make \(folder.path) private: \(String(cString: strerror(errno))).")
        }
    }

    /// A real folder, not a link to one.
    static func isFolder(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    static func modified(_ url: URL) -> Date? {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }

    /// Letters, digits, `-` and `_`, at most 64: a pick id as the picker makes them.
    static func isPlainToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

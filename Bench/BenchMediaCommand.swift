import ArgumentParser
import Foundation
import LightboxCommandLineSupport
import Media

/// `lightbox bench media`: Lightbox's metadata reader and thumbnailer against the tools people
/// would otherwise use (exiftool, vipsthumbnail), over the same files in the same run.
struct BenchMediaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Time metadata extraction and thumbnails against exiftool and vipsthumbnail over a folder.",
        discussion: """
        Over every media file in the folder (by extension: JPEG, PNG, GIF, WebP, HEIC, MP4, MOV): \
        (a) MetadataReader on each file in this process, then ONE `exiftool -fast -json` process \
        over the same files; (b) a thumbnail of each image (fit in --size × --size, never enlarged, \
        JPEG at quality 85 without metadata, written to a temporary folder) with ImageRenderer, then \
        ONE `vipsthumbnail` process over the same images with the same settings \
        (`--size NxN> -o DIR/%s.jpg[Q=85,strip]`). Prints counts, total and per-file \
        times, and the ratio lightbox / baseline (below 1: Lightbox is faster). The baselines' times \
        include their start-up, which is printed too. Install both tools with \
        `bash deploy/install-deps.sh --bench`. Build with -c release for representative numbers.
        """)

    @Option(help: "The folder to read (default: ../shared/media if it exists, else Samples/library and Samples/extra).")
    var folder: String?

    @Option(help: "Thumbnail box side in pixels.")
    var size = 256

    @Flag(help: "List the files each tool skipped.")
    var verbose = false

    static let mediaExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "mp4", "m4v", "mov"]
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "heic", "heif"]
    static let quality = 85

    func run() async throws {
        guard size > 0 else { throw ValidationError("--size must be positive") }
        let folders = try chosenFolders()
        let files = try folders.flatMap(Self.mediaFiles(in:))
        guard !files.isEmpty else { throw ValidationError("no media files in \(folders.map(\.path).joined(separator: ", "))") }
        let images = files.filter { Self.imageExtensions.contains($0.pathExtension.lowercased()) }
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-media-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        print("lightbox bench media: \(files.count) files (\(images.count) images) in \(folders.map(\.path).joined(separator: ", "))")
        print("")
        print("metadata (every file)".padding(toLength: 34, withPad: " ", startingAt: 0) + Row.header)
        let reader = try timeMetadataReader(files)
        print(reader.line)
        report(reader)
        if let exiftool = try await timeExiftool(files, work: work) {
            print(exiftool.line)
            report(exiftool)
            print(ratio(reader, exiftool))
        }
        print("")
        print("thumbnails (\(size) px, images)".padding(toLength: 34, withPad: " ", startingAt: 0) + Row.header)
        let renderer = try timeImageRenderer(images, work: work)
        print(renderer.line)
        report(renderer)
        if let vipsthumbnail = try await timeVipsthumbnail(images, work: work) {
            print(vipsthumbnail.line)
            report(vipsthumbnail)
            print(ratio(renderer, vipsthumbnail))
        }
    }

    // MARK: - Files

    func chosenFolders() throws -> [URL] {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let candidates: [URL]
        if let folder {
            candidates = [URL(fileURLWithPath: folder, relativeTo: current)]
        } else if Self.isFolder(current.appendingPathComponent("../shared/media")) {
            candidates = [current.appendingPathComponent("../shared/media")]
        } else {
            candidates = [current.appendingPathComponent("Samples/library"), current.appendingPathComponent("Samples/extra")]
        }
        let folders = candidates.map(\.standardizedFileURL).filter(Self.isFolder)
        guard !folders.isEmpty else {
            throw ValidationError("no folder to read: \(candidates.map(\.standardizedFileURL.path).joined(separator: ", ")) not found (use --folder)")
        }
        return folders
    }

    static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Media files under `folder` (recursively, by extension), sorted by path.
    static func mediaFiles(in folder: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where mediaExtensions.contains(url.pathExtension.lowercased()) {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    // MARK: - Lightbox

    func timeMetadataReader(_ files: [URL]) throws -> Row {
        let progress = Progress("metadata", total: files.count)
        var skipped: [String] = []
        let start = ContinuousClock.now
        for (index, file) in files.enumerated() {
            do {
                _ = try MetadataReader.read(fileAt: file)
            } catch {
                skipped.append("\(error)")
            }
            progress.update(index + 1, file)
        }
        return Row(tool: "lightbox MetadataReader", files: files.count, done: files.count - skipped.count,
                   elapsed: ContinuousClock.now - start, skipped: skipped)
    }

    func timeImageRenderer(_ images: [URL], work: URL) throws -> Row {
        let output = work.appendingPathComponent("lightbox-thumbnails")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let progress = Progress("thumbnails", total: images.count)
        var skipped: [String] = []
        let start = ContinuousClock.now
        for (index, image) in images.enumerated() {
            do {
                let thumbnail = try ImageRenderer.thumbnail(of: image, targetWidth: size, targetHeight: size, contentMode: .fit,
                                                            quality: Self.quality)
                try thumbnail.data.write(to: output.appendingPathComponent("\(index).\(thumbnail.type == .png ? "png" : "jpg")"))
            } catch {
                skipped.append("\(error)")
            }
            progress.update(index + 1, image)
        }
        return Row(tool: "lightbox ImageRenderer", files: images.count, done: images.count - skipped.count,
                   elapsed: ContinuousClock.now - start, skipped: skipped)
    }

    // MARK: - Baselines

    /// One `exiftool -fast -json` over every file (named in an argument file); a file counts as
    /// read when its JSON object has no Error.
    func timeExiftool(_ files: [URL], work: URL) async throws -> Row? {
        guard let exiftool = Self.executable("exiftool") else {
            note("exiftool not found: skipped (install it with `bash deploy/install-deps.sh --bench`)")
            return nil
        }
        let startup = try await Self.time(exiftool, ["-ver"], work: work).elapsed
        let arguments = work.appendingPathComponent("exiftool-files.txt")
        try Data(files.map(\.path).joined(separator: "\n").utf8).write(to: arguments)
        note("running exiftool over \(files.count) files…")
        let (elapsed, output) = try await Self.time(exiftool, ["-fast", "-json", "-@", arguments.path], work: work)
        let objects = (try? JSONSerialization.jsonObject(with: output)) as? [[String: Any]] ?? []
        let skipped: [String] = objects.compactMap { object in
            guard let error = object["Error"] else { return nil }
            let name = URL(fileURLWithPath: object["SourceFile"] as? String ?? "?").lastPathComponent
            return "\(name): \(error)"
        }
        return Row(tool: "exiftool -fast -json (1 process)", files: files.count, done: files.count - skipped.count, elapsed: elapsed,
                   note: "start-up \(Row.milliseconds(startup)) ms", skipped: skipped)
    }

    /// One `vipsthumbnail` over every image, each through a uniquely named link so that files with
    /// the same name in different folders do not overwrite each other's thumbnail.
    func timeVipsthumbnail(_ images: [URL], work: URL) async throws -> Row? {
        guard let vipsthumbnail = Self.executable("vipsthumbnail") else {
            note("vipsthumbnail not found: skipped (install it with `bash deploy/install-deps.sh --bench`)")
            return nil
        }
        let links = work.appendingPathComponent("vips-inputs")
        let output = work.appendingPathComponent("vips-thumbnails")
        for folder in [links, output] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        var inputs: [String] = []
        for (index, image) in images.enumerated() {
            let link = links.appendingPathComponent("\(index).\(image.pathExtension)")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: image)
            inputs.append(link.path)
        }
        let startup = try await Self.time(vipsthumbnail, ["--vips-version"], work: work).elapsed
        note("running vipsthumbnail over \(images.count) images…")
        let elapsed = try await Self.time(vipsthumbnail, inputs + ["--size", "\(size)x\(size)>", "-o", output.path + "/%s.jpg[Q=\(Self.quality),strip]"],
                                          work: work).elapsed
        let made = Set((try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? [])
        let skipped = images.indices.filter { !made.contains("\($0).jpg") }.map { images[$0].lastPathComponent }
        return Row(tool: "vipsthumbnail (1 process)", files: images.count, done: images.count - skipped.count, elapsed: elapsed,
                   note: "start-up \(Row.milliseconds(startup)) ms", skipped: skipped)
    }

    /// Runs a tool to its end; standard output goes to a file (read back afterwards, so a large
    /// output cannot fill a pipe and stall the tool), standard error is discarded.
    static func time(_ tool: URL, _ arguments: [String], work: URL) async throws -> (elapsed: Duration, output: Data) {
        let outputURL = work.appendingPathComponent("\(tool.lastPathComponent)-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw ValidationError("cannot create \(outputURL.path)")
        }
        let outputHandle = try FileHandle(forWritingTo: outputURL)
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.standardOutput = outputHandle
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        let _: Void = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let elapsed = ContinuousClock.now - start
        try? outputHandle.close()
        defer { try? FileManager.default.removeItem(at: outputURL) }
        return (elapsed, (try? Data(contentsOf: outputURL)) ?? Data())
    }

    /// The first executable called `name` on PATH.
    static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    // MARK: - Output

    func report(_ row: Row) {
        guard verbose else { return }
        for file in row.skipped { print("      skipped \(file)") }
    }

    func ratio(_ lightbox: Row, _ baseline: Row) -> String {
        let base = baseline.elapsed.seconds
        let value = base > 0 ? lightbox.elapsed.seconds / base : .infinity
        return "  ratio lightbox / \(baseline.tool.split(separator: " ")[0]): " + String(format: "%.2f", value)
    }

    /// One tool's line: files tried, done, skipped, total and per-file time.
    struct Row {
        var tool: String
        var files: Int
        var done: Int
        var elapsed: Duration
        var note = ""
        /// What was skipped, with the tool's reason where it gives one.
        var skipped: [String] = []

        static let header = "files   done  skipped   total ms   ms/file"

        var line: String {
            let perFile = files > 0 ? elapsed.seconds * 1000 / Double(files) : 0
            let columns = String(format: "%5d  %5d  %7d  %9.1f  %8.2f", files, done, files - done, elapsed.seconds * 1000, perFile)
            return "  " + tool.padding(toLength: 32, withPad: " ", startingAt: 0) + columns + (note.isEmpty ? "" : "   (\(note))")
        }

        static func milliseconds(_ duration: Duration) -> String { String(format: "%.0f", duration.seconds * 1000) }
    }

    /// The item progress bar, drawn only when standard error is a terminal.
    struct Progress {
        let bar: ProgressBar?
        let total: Int

        init(_ label: String, total: Int) {
            bar = isatty(STDERR_FILENO) == 1 ? ProgressBar(label) : nil
            self.total = total
        }

        func update(_ completed: Int, _ file: URL) {
            bar?.update(items: completed, of: total, current: file.lastPathComponent)
        }
    }
}

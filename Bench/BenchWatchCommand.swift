import ArgumentParser
import Foundation
import LightboxCommandLineSupport
import LightboxTransport

/// `lightbox bench watch`: how long a picker watching a large tree takes to catch up when it
/// restarts, and how much memory it needs for it, with nothing changed and with 1% changed.
struct BenchWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Time a watching picker's catch-up on restart over a tree of N small files: none changed, then 1% changed.",
        discussion: """
        Writes --files distinct 8 × 8 PNGs in folders of 1,000, starts lightbox-auth and lightbox-picker \
        --watch on the tree and waits for its first scan (every file imported). Then restarts the picker \
        twice: with nothing changed (each file's size, time and inode compared with the catalog's, none \
        read), and after rewriting 1% of the files (only those read). Each catch-up is timed from the \
        picker's start to its "caught up" log line; the picker's peak memory is printed for each run.
        """)

    @Option(help: "Files in the watched tree.") var files = 100_000

    func validate() throws {
        guard files >= 100 else { throw ValidationError("--files must be at least 100") }
    }

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-watch-\(getpid())")
        let media = work.appendingPathComponent("media")
        defer { try? FileManager.default.removeItem(at: work) }
        let folders = try TinyPNG.writeFolders(files, into: media)
        let services = try await WatchingPicker(in: work, watching: media)
        defer { services.stop() }
        print("bench watch: \(files) files in \(folders.count) folders, \(ProcessInfo.processInfo.activeProcessorCount) cores")

        let (first, firstSeconds) = try await services.catchUp(number: 1)
        try expect(first, read: files)
        print(String(format: "  first scan (all imported)   %8.2f s, picker peak memory %7.1f MiB", firstSeconds, services.peakMebibytes))

        services.stopPicker()
        try services.startPicker()
        let (unchanged, unchangedSeconds) = try await services.catchUp(number: 2)
        try expect(unchanged, read: 0)
        print(String(format: "  restart, nothing changed    %8.2f s, picker peak memory %7.1f MiB", unchangedSeconds, services.peakMebibytes))

        services.stopPicker()
        let changed = files / 100
        for index in stride(from: 0, to: files, by: files / changed).prefix(changed) {
            let file = folders[index / 1000].appendingPathComponent("img-\(index).png")
            try TinyPNG.make(number: files + index).write(to: file)
        }
        try services.startPicker()
        let (some, someSeconds) = try await services.catchUp(number: 3)
        try expect(some, read: changed)
        print(String(format: "  restart, 1%% changed (%d) %*.2f s, picker peak memory %7.1f MiB", changed, 13 - String(changed).count, someSeconds, services.peakMebibytes))
    }

    func expect(_ line: String, read: Int) throws {
        guard line.contains("read=\(read) ") else { throw ValidationError("expected \(read) files read, the picker says: \(line)") }
    }
}

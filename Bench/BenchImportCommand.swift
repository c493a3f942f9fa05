import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxTransport
import Media

/// `lightbox bench import`: an owner's import of many ordinary photos, against vipsthumbnail
/// making the same thumbnails in the same run.
struct BenchImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import N distinct 640 × 480 JPEGs through owner.import; compare with vipsthumbnail over the same files.",
        discussion: """
        Writes --count distinct copies of a JPEG (Samples/library/harbour.jpg by default; each has a \
        numbered comment segment, so each is its own asset) in folders of 1,000, starts its own \
        lightbox-auth and lightbox-picker on temporary ipc endpoints, imports the folders through \
        owner.import (every file read, hashed, stored and proven to decode with a 256-pixel thumbnail), \
        and prints files/s and the picker's peak memory. Then runs vipsthumbnail (libvips' own tool, \
        `bash deploy/install-deps.sh --bench`) over the same files at the same size, one process per \
        core, and prints the ratio. A picker that dies fails the bench with its exit status.
        """)

    @Option(help: "Photos to import.") var count = 10_000
    @Option(help: "The JPEG to copy.") var source = "Samples/library/harbour.jpg"

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-import-\(getpid())")
        let media = work.appendingPathComponent("media")
        defer { try? FileManager.default.removeItem(at: work) }
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: source))
        let writing = ProgressBar("writing photos")
        let folders = try NumberedJPEG.write(count, from: jpeg, into: media) { writing.update(items: $0, of: count, current: "") }

        let (directory, processes) = try await ServiceProcesses.forBench(in: work)
        defer { processes.stop() }
        let owner = OwnerSurface(picker: try await directory.connectToPicker(as: try directory.ownerKeyPair(), timeout: .seconds(600)))

        let bar = ProgressBar("import")
        var imported = 0
        let start = ContinuousClock.now
        for folder in folders {
            let summary: ImportSummary
            do {
                summary = try await owner.importLibrary(at: folder.path)
            } catch where !processes.picker.isRunning {
                throw ValidationError("lightbox-picker \(processes.picker.exitDescription) during the import (\(error))")
            }
            guard summary.failed.isEmpty else { throw ValidationError("import failed: \(summary.failed[0].message)") }
            imported += summary.imported.count
            bar.update(items: imported, of: count, current: folder.lastPathComponent)
        }
        let seconds = (ContinuousClock.now - start).seconds
        let peak = Double(ProcessMemory.peakResidentBytes(of: processes.picker.processIdentifier) ?? 0) / 1_048_576
        processes.stop()

        print("bench import: \(count) distinct 640 × 480 JPEGs, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(String(format: "  lightbox import        %8.0f files/s (%.1f s), picker peak memory %.1f MiB", Double(count) / seconds, seconds, peak))
        guard let vips = try await timeVipsthumbnail(folders, work: work) else { return }
        print(String(format: "  vipsthumbnail          %8.0f files/s (%.1f s, one process per core, the thumbnails alone)", Double(count) / vips, vips))
        print(String(format: "  ratio (lightbox/vips)  %8.2f", vips / seconds))
    }

    /// Seconds vipsthumbnail takes to make every file's 256-pixel thumbnail, one process per core,
    /// each over folders in turn; nil when it is not installed.
    func timeVipsthumbnail(_ folders: [URL], work: URL) async throws -> Double? {
        guard let vipsthumbnail = BenchMediaCommand.executable("vipsthumbnail") else {
            note("vipsthumbnail not found: no baseline (install it with `bash deploy/install-deps.sh --bench`)")
            return nil
        }
        let output = work.appendingPathComponent("vips-thumbnails")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        note("running vipsthumbnail over the same files…")
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for core in 0..<cores {
                group.addTask {
                    for folder in stride(from: core, to: folders.count, by: cores).map({ folders[$0] }) {
                        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0).path }
                        _ = try await BenchMediaCommand.time(vipsthumbnail, files + ["--size", "256x256>", "-o", output.path + "/%s.jpg[Q=80,strip]"],
                                                             work: work)
                    }
                }
            }
            try await group.waitForAll()
        }
        return (ContinuousClock.now - start).seconds
    }
}

import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxTransport
import Media

/// `lightbox bench import`: the first scan of a folder of real-sized photos by a picker watching
/// it, against vipsthumbnail making the same thumbnails from the same files in the same run.
struct BenchImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Time a watching picker's first scan of N 12-megapixel JPEGs against vipsthumbnail on the same files.",
        discussion: """
        Makes a 4032 × 3024 JPEG with EXIF from --source (scaled up, with noise so it compresses like \
        a photo; needs `vips`), writes --count distinct copies of it (each with a numbered comment \
        segment), then runs --rounds rounds, alternating: (a) a fresh lightbox-auth and lightbox-picker \
        --watch on the folder, timed from the picker's start until its catch-up says every file is in \
        the catalog (each file read, hashed, stored and proven to decode with the owner's 256-pixel \
        thumbnail, its catalog rows committed once its files are durable); (b) vipsthumbnail over \
        the same files at the same size, one process per core. The scan is timed by the picker \
        itself, from listing the folder to the last commit; the picker's start-up (from its process \
        start to the scan's start) is printed beside it. Prints each round, the medians, the ratio \
        of the scan to vipsthumbnail (goal ≤ 1.3) and the same with the start-up added, and the \
        picker's peak memory. \
        vipsthumbnail and vips come with `bash deploy/install-deps.sh --bench`.
        """)

    @Option(help: "Photos to import.") var count = 500
    @Option(help: "Rounds of each (alternating); the medians are printed.") var rounds = 3
    @Option(help: "The JPEG to scale up (its EXIF is kept).") var source = "Samples/library/harbour.jpg"

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() async throws {
        guard let vips = BenchMediaCommand.executable("vips"), let vipsthumbnail = BenchMediaCommand.executable("vipsthumbnail") else {
            throw ValidationError("vips and vipsthumbnail are needed: bash deploy/install-deps.sh --bench")
        }
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-import-\(getpid())")
        let media = work.appendingPathComponent("media")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let jpeg = try await Self.twelveMegapixelJPEG(from: URL(fileURLWithPath: source), vips: vips, work: work)
        let writing = ProgressBar("writing photos")
        let folders = try NumberedJPEG.write(count, from: jpeg, into: media) { writing.update(items: $0, of: count, current: "") }
        let files = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0).path }
        }

        print("bench import: \(count) distinct 4032 × 3024 JPEGs (\(jpeg.count / 1024) KiB each, with EXIF), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(rounds) rounds")
        var scans: [Double] = []
        var totals: [Double] = []
        var thumbnailer: [Double] = []
        var scanCPU: [Double] = []
        var thumbnailerCPU: [Double] = []
        var peak = 0.0
        for round in 1...rounds {
            let scan = try await timeWatchedImport(of: media, round: round, work: work)
            scans.append(scan.seconds)
            totals.append(scan.sinceStart)
            scanCPU.append(scan.cpuSeconds)
            peak = max(peak, scan.mebibytes)
            let thumbnails = try await timeVipsthumbnail(vipsthumbnail, files, work: work)
            thumbnailer.append(thumbnails.seconds)
            thumbnailerCPU.append(thumbnails.cpuSeconds)
            print(String(format: "  round %d: lightbox --watch %.2f s (scan %.2f s + start-up %.2f s; %.2f CPU s), vipsthumbnail %.2f s (%.2f CPU s), load %.1f",
                         round, scan.sinceStart, scan.seconds, scan.sinceStart - scan.seconds, scan.cpuSeconds, thumbnails.seconds, thumbnails.cpuSeconds,
                         Self.loadAverage()))
        }
        let scan = BenchStatistics.median(scans)
        let total = BenchStatistics.median(totals)
        let thumbnailerMedian = BenchStatistics.median(thumbnailer)
        print(String(format: "  lightbox --watch first scan %8.2f s median (%.1f files/s: listing the folder to the last commit, timed by the picker), "
                     + "picker peak memory %.1f MiB", scan, Double(count) / scan, peak))
        print(String(format: "    with the picker's start-up %8.2f s median (from starting its process until the scan is seen done)", total))
        print(String(format: "  vipsthumbnail               %8.2f s median (%.1f files/s, one process per core, the thumbnails alone)",
                     thumbnailerMedian, Double(count) / thumbnailerMedian))
        print(String(format: "  ratio (lightbox/vips)       %8.2f (goal ≤ 1.30); with the start-up %.2f", scan / thumbnailerMedian, total / thumbnailerMedian))
        print(String(format: "  CPU seconds                 %8.2f lightbox (start-up included), %.2f vipsthumbnail: ratio %.2f "
                     + "(medians; what a busy machine does not stretch)",
                     BenchStatistics.median(scanCPU), BenchStatistics.median(thumbnailerCPU),
                     BenchStatistics.median(scanCPU) / BenchStatistics.median(thumbnailerCPU)))
    }

    /// The system's load average over the last minute: how busy the machine was during a round.
    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : 0
    }

    /// A fresh picker's first scan of `media`: its seconds as the picker timed them, the seconds
    /// from starting the picker until the scan was seen done, and the picker's peak memory in MiB.
    func timeWatchedImport(of media: URL, round: Int, work: URL) async throws
        -> (seconds: Double, sinceStart: Double, cpuSeconds: Double, mebibytes: Double) {
        let roundFolder = work.appendingPathComponent("round-\(round)")
        try FileManager.default.createDirectory(at: roundFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: roundFolder) }
        let services = try await WatchingPicker(in: roundFolder, watching: media)
        defer { services.stop() }
        let (line, sinceStart) = try await services.catchUp(number: 1)
        let cpuSeconds = ProcessCPUTime.seconds(of: services.picker.processIdentifier) ?? 0
        guard line.contains("read=\(count) ") else { throw ValidationError("the picker did not read every file: \(line)") }
        guard let seconds = WatchingPicker.value("seconds", in: line).flatMap(Double.init) else {
            throw ValidationError("the picker's summary does not say how long the scan took: \(line)")
        }
        let owner = OwnerSurface(picker: try await services.directory.connectToPicker(as: try services.directory.ownerKeyPair(),
                                                                                      timeout: .seconds(60)))
        let imported = try await owner.assets().count
        guard imported == count else { throw ValidationError("\(imported) of \(count) photos are in the catalog after the scan: \(line)") }
        return (seconds, sinceStart, cpuSeconds, services.peakMebibytes)
    }

    /// Seconds (elapsed, and CPU) vipsthumbnail takes to make every file's 256-pixel thumbnail, one
    /// process per core.
    func timeVipsthumbnail(_ vipsthumbnail: URL, _ files: [String], work: URL) async throws -> (seconds: Double, cpuSeconds: Double) {
        let output = work.appendingPathComponent("vips-thumbnails")
        try? FileManager.default.removeItem(at: output)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let start = ContinuousClock.now
        let cpuBefore = ProcessCPUTime.endedChildrenSeconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for core in 0..<cores {
                let share = stride(from: core, to: files.count, by: cores).map { files[$0] }
                guard !share.isEmpty else { continue }
                group.addTask {
                    _ = try await BenchMediaCommand.time(vipsthumbnail, share + ["--size", "256x256>", "-o", output.path + "/%s.jpg[Q=80,strip]"],
                                                         work: work)
                }
            }
            try await group.waitForAll()
        }
        return ((ContinuousClock.now - start).seconds, ProcessCPUTime.endedChildrenSeconds() - cpuBefore)
    }

    /// `source` scaled to 4032 × 3024 with grain added (a smooth upscale would decode faster than
    /// a photo), saved at quality 90 with the source's EXIF.
    static func twelveMegapixelJPEG(from source: URL, vips: URL, work: URL) async throws -> Data {
        guard let metadata = try? MetadataReader.read(fileAt: source), let width = metadata.pixelWidth, width > 0 else {
            throw ValidationError("\(source.path) is not a JPEG the bench can read")
        }
        let scaled = work.appendingPathComponent("scaled.v").path
        let noise = work.appendingPathComponent("noise.v").path
        let sum = work.appendingPathComponent("sum.v").path
        let result = work.appendingPathComponent("source-12mp.jpg")
        for arguments in [["resize", source.path, scaled, "\(4032.0 / Double(width))"],
                          ["gaussnoise", noise, "4032", "3024", "--sigma", "12", "--mean", "0"],
                          ["add", scaled, noise, sum], ["cast", sum, result.path + "[Q=90]", "uchar"]] {
            _ = try await BenchMediaCommand.time(vips, arguments, work: work)
        }
        for file in [scaled, noise, sum] { try? FileManager.default.removeItem(atPath: file) }
        return try Data(contentsOf: result)
    }
}

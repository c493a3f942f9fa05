import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import Media
import LightboxTransport

/// `lightbox bench scale`: how the library behaves with many assets — import rate, first and deep
/// pages, fetches, a large limited selection (of assets, and of an album it follows), a large load,
/// and each process's peak memory — on the embedded default and, side by side in the same run, with
/// the state on PostgreSQL or the originals on an S3-compatible store.
struct BenchScaleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Import N distinct images, then time pages, fetches, a large limited selection and a large load.",
        discussion: """
        Writes --count distinct small PNG files (8 × 8, a second apart in time) in folders of 1,000 and \
        a --load-mb synthetic movie, starts its own lightbox-auth and lightbox-picker on temporary ipc \
        endpoints for each setup, imports the folders through owner.import, and prints: import files/s; \
        the movie's import; library.query's first page and a page 90% of the way through (keyset cursor); \
        the owner's first page and a page 90% of the way through; library.fetchAssets of 100 identifiers; \
        library.query for a limited app whose selection holds --selection assets, and for one whose \
        selection follows an album of those assets; the movie streamed through its item provider; and the \
        peak memory of every process. Each time is the median of --repeats calls.

        The baseline setup is the embedded default: SQLite and a folder of originals. --database adds a \
        setup with both services' state on PostgreSQL, --originals one with the originals in an \
        S3-compatible store; all setups run at once, their calls alternate (folder by folder for the \
        import), and each column's ratio to the baseline is printed. `--database postgres` and \
        `--originals s3` start throwaway servers (PostgreSQL with initdb, SeaweedFS's `weed mini`, as the \
        tests do; `make deps` installs both); or give a postgres:// URL, or s3://BUCKET/PREFIX with \
        --s3-endpoint and credentials in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.
        """)

    @Option(help: "Assets in the library (1000000 works; it takes a while).") var count = 10_000
    @Option(help: "Assets in the limited app's selection (at most --count).") var selection = 100_000
    @Option(help: "Calls per measurement; the median is printed.") var repeats = 15
    @Option(help: "Size of the movie imported and loaded, in MiB (0 leaves it out).") var loadMb = 256
    @Option(help: "Also measure with the state on PostgreSQL: a postgres://USER@HOST:PORT/DB URL, or `postgres` for a throwaway server.")
    var database: String?
    @Option(help: "Also measure with the originals in an object store: s3://BUCKET/PREFIX (with --s3-endpoint), or `s3` for a throwaway SeaweedFS.")
    var originals: String?
    @Option(help: "The object store's URL for --originals s3://…") var s3Endpoint: String?

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-scale-\(getpid())")
        let media = work.appendingPathComponent("media")
        defer { try? FileManager.default.removeItem(at: work) }
        let servers = ThrowawayServers()
        defer { servers.stop() }
        var setups = [ScaleSetup.embedded]
        if let database { setups.append(try await servers.databaseSetup(database)) }
        if let originals { setups.append(try await servers.originalsSetup(originals, endpoint: s3Endpoint)) }

        let folders = try TinyPNG.writeFolders(count, into: media.appendingPathComponent("images"))
        var stacks: [ScaleStack] = []
        defer { for stack in stacks { stack.processes.stop() } }
        for (index, setup) in setups.enumerated() {
            stacks.append(try await ScaleStack(setup, in: work.appendingPathComponent("setup-\(index)")))
        }

        // Import, folder by folder, each folder into every setup in turn.
        var importSeconds = [Double](repeating: 0, count: stacks.count)
        let importBar = ProgressBar("import")
        for (number, folder) in folders.enumerated() {
            for (index, stack) in stacks.enumerated() { importSeconds[index] += try await stack.importFolder(folder) }
            importBar.update(items: min((number + 1) * 1000, count), of: count, current: folder.lastPathComponent)
        }
        var movieImport: [Double]?
        if loadMb > 0 {
            let movieFolder = media.appendingPathComponent("movie")
            try FileManager.default.createDirectory(at: movieFolder, withIntermediateDirectories: true)
            note("writing a \(loadMb) MiB synthetic movie")
            try SyntheticMovie.write(to: movieFolder.appendingPathComponent("bench.mp4"), mediaBytes: Int64(loadMb) << 20)
            var seconds: [Double] = []
            for stack in stacks { seconds.append(try await stack.importFolder(movieFolder)) }
            movieImport = seconds
        }
        note("giving three apps their access")
        for stack in stacks {
            try await stack.makeApps(selection: selection)
            try await stack.findDeepCursors(count: count)
            if loadMb > 0 { try await stack.pickMovie() }
        }

        note("measuring (\(repeats) calls each, setups alternating)")
        var generator = SystemRandomNumberGenerator()
        let hundred = (0..<100).map { _ in Int.random(in: 0..<count, using: &generator) }
        var rows: [(String, [Double], Unit)] = [
            ("import", importSeconds.map { Double(count) / $0 }, .filesPerSecond),
        ]
        if let movieImport { rows.append(("import of the \(loadMb) MiB movie", movieImport, .seconds)) }
        rows += [
            ("library.query, first page", try await alternating(stacks) { _ = try await $0.full.fetchAssets(AssetQuery(limit: 100)) }, .seconds),
            ("library.query, page at 90%", try await alternating(stacks) { stack in
                var query = AssetQuery(limit: 100)
                query.after = stack.deepQueryCursor
                _ = try await stack.full.fetchAssets(query)
            }, .seconds),
            ("owner.assets, first page", try await alternating(stacks) { _ = try await $0.owner.assetPage(limit: 100) }, .seconds),
            ("owner.assets, page at 90%", try await alternating(stacks) { _ = try await $0.owner.assetPage(limit: 100, after: $0.deepOwnerCursor) }, .seconds),
            ("library.fetchAssets, 100 ids", try await alternating(stacks) { stack in
                _ = try await stack.full.fetchAssets(withLocalIdentifiers: hundred.map { stack.identifiers[$0] })
            }, .seconds),
            ("library.query, limited app", try await alternating(stacks) { _ = try await $0.limited.fetchAssets(AssetQuery(limit: 100)) }, .seconds),
            ("library.query, album grant", try await alternating(stacks) { _ = try await $0.follower.fetchAssets(AssetQuery(limit: 100)) }, .seconds),
        ]
        if loadMb > 0 {
            let rounds = max(3, repeats / 5)
            var loads = [[Double]](repeating: [], count: stacks.count)
            for round in 1...rounds {
                note("loading the movie, round \(round) of \(rounds)")
                for (index, stack) in stacks.enumerated() {
                    loads[index].append(try await stack.loadMovie(to: work.appendingPathComponent("loaded-\(index).mp4")))
                }
            }
            rows.append(("\(loadMb) MiB load (MB/s)", loads.map { Double(loadMb) * 1.048576 / BenchStatistics.median($0) }, .megabytesPerSecond))
        }

        print("bench scale: \(count) assets, limited selection of \(min(selection, count)); medians of \(repeats) calls, setups alternating")
        print(Self.table(rows, setups: setups))
        for stack in stacks {
            let peak = stack.peakMemory()
            print(String(format: "  peak memory, %@: picker %.1f MiB, auth %.1f MiB", stack.setup.name,
                         Double(peak.picker) / 1_048_576, Double(peak.auth) / 1_048_576))
        }
        print(String(format: "  peak memory of this client: %.1f MiB", Double(ProcessMemory.peakResidentBytes(of: getpid()) ?? 0) / 1_048_576))
    }

    enum Unit { case seconds, filesPerSecond, megabytesPerSecond }

    /// The median seconds of `repeats` calls per stack, one call to each stack in turn.
    func alternating(_ stacks: [ScaleStack], _ call: (ScaleStack) async throws -> Void) async throws -> [Double] {
        var seconds = [[Double]](repeating: [], count: stacks.count)
        for _ in 0..<repeats {
            for (index, stack) in stacks.enumerated() {
                let start = ContinuousClock.now
                try await call(stack)
                seconds[index].append((ContinuousClock.now - start).seconds)
            }
        }
        return seconds.map(BenchStatistics.median)
    }

    /// One row per measure, one column per setup, and each other setup's ratio to the first (for
    /// times, setup / baseline; for rates, baseline / setup: above 1 is slower either way).
    static func table(_ rows: [(String, [Double], Unit)], setups: [ScaleSetup]) -> String {
        func cell(_ value: Double, _ unit: Unit) -> String {
            switch unit {
            case .seconds: String(format: "%10.2f ms", value * 1000)
            case .filesPerSecond: String(format: "%8.0f /s", value)
            case .megabytesPerSecond: String(format: "%8.1f MB/s", value)
            }
        }
        var header = "  " + "".padding(toLength: 34, withPad: " ", startingAt: 0)
        for (index, setup) in setups.enumerated() {
            header += setup.name.padding(toLength: 18, withPad: " ", startingAt: 0)
            if index > 0 { header += "slower ×  " }
        }
        var lines = [header]
        for (name, values, unit) in rows {
            var line = "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
            for (index, value) in values.enumerated() {
                line += cell(value, unit).padding(toLength: 18, withPad: " ", startingAt: 0)
                if index > 0 {
                    let ratio = unit == .seconds ? value / values[0] : values[0] / value
                    line += String(format: "%6.2f    ", ratio)
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import LightboxTransport

/// `lightbox bench scale`: how the library behaves with many assets — import rate, first and deep
/// pages, fetches, a large limited selection (of assets, and of an album it follows), and each
/// process's peak memory.
struct BenchScaleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Import N distinct images, then time pages, fetches and a large limited selection.",
        discussion: """
        Writes --count distinct small PNG files (8 × 8, a second apart in time) in folders of 1,000, \
        starts its own lightbox-auth and lightbox-picker on temporary ipc endpoints, imports the \
        folders through owner.import, and prints: import files/s; library.query's first page and a page \
        90% of the way through (keyset cursor); the owner's first page and a page 90% of the way through; library.fetchAssets of 100 \
        identifiers; library.query for a limited app whose selection holds --selection assets, and for \
        one whose selection follows an album of those assets; and the peak memory of every process. Each \
        time is the median of --repeats calls.
        """)

    @Option(help: "Assets in the library (1000000 works; it takes a while).") var count = 10_000
    @Option(help: "Assets in the limited app's selection (at most --count).") var selection = 100_000
    @Option(help: "Calls per measurement; the median is printed.") var repeats = 15

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-scale-\(getpid())")
        let media = work.appendingPathComponent("media")
        defer { try? FileManager.default.removeItem(at: work) }
        let folders = try TinyPNG.writeFolders(count, into: media)

        let (directory, processes) = try await ServiceProcesses.forBench(in: work)
        defer { processes.stop() }
        let ownerKey = try directory.ownerKeyPair()
        let owner = OwnerSurface(picker: try await directory.connectToPicker(as: ownerKey, timeout: .seconds(600)))
        let settings = OwnerSettings(auth: try await directory.connectToAuth(as: ownerKey, timeout: .seconds(600)))
        let registry = AppRegistryClient(auth: try await directory.connectToAuth(as: ownerKey))

        // Import, folder by folder, through the owner's operation.
        var identifiers: [String] = []
        identifiers.reserveCapacity(count)
        let importBar = ProgressBar("import")
        let importStart = ContinuousClock.now
        for folder in folders {
            let summary = try await owner.importLibrary(at: folder.path)
            guard summary.failed.isEmpty else { throw ValidationError("import failed: \(summary.failed[0].message)") }
            identifiers += summary.imported
            importBar.update(items: identifiers.count, of: count, current: folder.lastPathComponent)
        }
        let importSeconds = (ContinuousClock.now - importStart).seconds

        let full = try await app("scale", access: SetAccessRequest(app: "scale", readWrite: .full), directory: directory,
                                 registry: registry, settings: settings)
        let selected = Array(identifiers.prefix(min(selection, identifiers.count)))
        let limited = try await app("scalelimited", access: SetAccessRequest(app: "scalelimited", readWrite: .limited, selection: selected),
                                    directory: directory, registry: registry, settings: settings)

        // The same assets as an album another limited app follows: its pages join the album's members.
        let album = try await full.createAlbum(title: "bench scale")
        for start in stride(from: 0, to: selected.count, by: 1_000) {
            try await full.add(Array(selected[start..<min(start + 1_000, selected.count)]), toAlbum: album.identifier)
        }
        let follower = try await app("scalealbum", access: SetAccessRequest(app: "scalealbum", readWrite: .limited, albums: [album.identifier]),
                                     directory: directory, registry: registry, settings: settings)

        note("measuring (\(repeats) calls each)")
        let firstQuery = try await median { _ = try await full.fetchAssets(AssetQuery(limit: 100)) }
        // library.query continued by its keyset cursor to a page 90% of the way through.
        var queryCursor: String?
        var queried = 0
        while queried < count * 9 / 10 {
            var step = AssetQuery(limit: 1000)
            step.after = queryCursor
            let page = try await full.fetchAssets(step)
            queried += page.assets.count
            guard let next = page.next else { break }
            queryCursor = next
        }
        let deepAfter = queryCursor
        let deepQuery = try await median {
            var query = AssetQuery(limit: 100)
            query.after = deepAfter
            _ = try await full.fetchAssets(query)
        }
        let ownerFirst = try await median { _ = try await owner.assetPage(limit: 100) }
        // Walk the owner's listing once to find a cursor 90% of the way through.
        var cursor: String?
        var walked = 0
        let walkStart = ContinuousClock.now
        while walked < count * 9 / 10 {
            let page = try await owner.assetPage(limit: ListAssetsRequest.maximumLimit, after: cursor)
            walked += page.assets.count
            guard let next = page.next else { break }
            cursor = next
        }
        let walkSeconds = (ContinuousClock.now - walkStart).seconds
        let deepCursor = cursor
        let ownerDeep = try await median { _ = try await owner.assetPage(limit: 100, after: deepCursor) }
        var generator = SystemRandomNumberGenerator()
        let hundred = (0..<100).map { _ in identifiers[Int.random(in: 0..<identifiers.count, using: &generator)] }
        let fetch = try await median { _ = try await full.fetchAssets(withLocalIdentifiers: hundred) }
        let limitedQuery = try await median { _ = try await limited.fetchAssets(AssetQuery(limit: 100)) }
        let albumQuery = try await median { _ = try await follower.fetchAssets(AssetQuery(limit: 100)) }

        func milliseconds(_ value: Double) -> String { String(format: "%9.2f ms", value * 1000) }
        func mib(_ pid: Int32) -> String {
            String(format: "%.1f MiB", Double(ProcessMemory.peakResidentBytes(of: pid) ?? 0) / 1_048_576)
        }
        print("bench scale: \(count) assets, limited selection of \(selected.count); medians of \(repeats) calls")
        print(String(format: "  import                          %9.0f files/s (%.1f s)", Double(count) / importSeconds, importSeconds))
        print("  library.query, first page       \(milliseconds(firstQuery))")
        print("  library.query, page at 90%      \(milliseconds(deepQuery))")
        print("  owner.assets, first page        \(milliseconds(ownerFirst))")
        print("  owner.assets, page at 90%       \(milliseconds(ownerDeep))")
        print(String(format: "  owner.assets, walking 90%%       %9.2f s (%d assets in pages of %d)", walkSeconds, walked, ListAssetsRequest.maximumLimit))
        print("  library.fetchAssets, 100 ids    \(milliseconds(fetch))")
        print("  library.query, limited app      \(milliseconds(limitedQuery))")
        print("  library.query, album grant      \(milliseconds(albumQuery))")
        print("  peak memory: picker \(mib(processes.picker.processIdentifier)), auth \(mib(processes.auth.processIdentifier)), this client \(mib(getpid()))")
    }

    /// `count` distinct PNGs in folders of 1,000, each file a second older than the one before.
    func app(_ id: String, access: SetAccessRequest, directory: ServiceDirectory, registry: AppRegistryClient,
             settings: OwnerSettings) async throws -> PhotoLibrary {
        let key = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL(id))
        try await registry.register(AppManifest(id: id, name: id, publicKey: key.publicKey, usageReadWrite: "To measure",
                                                preventAutomaticLimitedAccessAlert: true))
        try await settings.setAccess(access)
        return PhotoLibrary(auth: try await directory.connectToAuth(as: key, timeout: .seconds(120)),
                            picker: try await directory.connectToPicker(as: key, timeout: .seconds(120)))
    }

    func median(_ call: () async throws -> Void) async throws -> Double {
        try await BenchStatistics.medianSeconds(of: repeats, call)
    }
}

import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import LightboxTransport

/// `lightbox bench browse`: what the owner waits for in the pick sheet of a large library — the
/// first thumbnail after an app's pick request, and the first results (and their first thumbnail)
/// after typing a search — over the owner's operations the surface calls.
struct BenchBrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Time a pick request to its first thumbnail, and searches to their first results, in a large library.",
        discussion: """
        Writes --count distinct small PNG files (8 × 8) whose EXIF names a camera (one of four), a \
        capture time (spread over the ten years before 2026) and a GPS position in one of twelve \
        cities, in folders of 1,000; starts its own lightbox-auth and lightbox-picker on temporary ipc \
        endpoints (the picker names each photo's city and country at import from the place table \
        `make deps` installs) and imports the folders through owner.import. Then, each the median of \
        --repeats: an app's picker.pick until the owner has the first page of the sheet \
        (owner.pending, owner.assets of 60) and its first thumbnail (owner.thumbnail); and each \
        search, from owner.assets with the typed text to its first page and first thumbnail: a \
        place, a year, a month, a place and a year, a camera, a kind no asset has, part of a file \
        name, and words that name nothing (every file name is looked at). Each search's page after \
        the first is timed too (keyset cursor).
        """)

    @Option(help: "Assets in the library (1000000 works; it takes a while).") var count = 10_000
    @Option(help: "Calls per measurement; the median is printed.") var repeats = 15
    @Option(help: ArgumentHelp("""
        Photos imported as files (default: all of --count); the rest are written into the catalog as \
        copies of imported rows (`CatalogRowCopies`), so a million-asset library takes minutes, not hours.
        """, valueName: "n"))
    var imported: Int?

    /// Where the generated photos were taken: positions near each city's centre.
    static let cities: [(name: String, latitude: Double, longitude: Double)] = [
        ("Lisbon", 38.7075, -9.1364), ("Oslo", 59.9139, 10.7522), ("Beijing", 39.9087, 116.3975), ("Sydney", -33.8568, 151.2153),
        ("London", 51.5007, -0.1246), ("Paris", 48.8584, 2.2945), ("Porto", 41.1579, -8.6291), ("Madrid", 40.4168, -3.7038),
        ("Berlin", 52.5200, 13.4050), ("Rome", 41.9028, 12.4964), ("Cairo", 30.0444, 31.2357), ("Nairobi", -1.2864, 36.8172),
    ]
    static let cameras = [("Apple", "iPhone 15 Pro"), ("Google", "Pixel 8"), ("Canon", "Canon EOS R5"), ("SONY", "ILCE-7M4")]

    /// The searches timed: what the owner types, and what it is.
    static let searches: [(text: String, what: String)] = [
        ("Lisbon", "a place"), ("2019", "a year"), ("March 2019", "a month"), ("Lisbon 2019", "a place and a year"),
        ("iPhone", "a camera"), ("screenshots", "a kind no asset is"), ("img-1234", "part of a file name"),
        ("Reykjavik", "words that name nothing"),
    ]

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-browse-\(getpid())")
        defer { try? FileManager.default.removeItem(at: work) }
        let files = min(imported ?? count, count)
        guard files >= Self.cities.count else { throw ValidationError("--imported must be at least \(Self.cities.count), one photo per city") }
        let folders = try TinyPNG.writeFolders(files, into: work.appendingPathComponent("media")) { index in
            GeotaggedPNG.make(number: index, tags: Self.tags(of: index, count: count))
        }

        let (directory, processes) = try await ServiceProcesses.forBench(in: work)
        defer { processes.stop() }
        let ownerKey = try directory.ownerKeyPair()
        let owner = OwnerSurface(picker: try await directory.connectToPicker(as: ownerKey, timeout: .seconds(600)))
        let bar = ProgressBar("import")
        let importStart = ContinuousClock.now
        var done = 0
        for folder in folders {
            let summary = try await owner.importLibrary(at: folder.path)
            guard summary.failed.isEmpty else { throw ValidationError("import failed: \(summary.failed[0].message)") }
            done += summary.imported.count
            bar.update(items: done, of: files, current: folder.lastPathComponent)
        }
        let importSeconds = (ContinuousClock.now - importStart).seconds
        let copyStart = ContinuousClock.now
        if files < count {
            note("writing \(count - files) more assets into the catalog")
            try CatalogRowCopies.add(files..<count, to: directory.dataDirectory.appendingPathComponent("picker/catalog.sqlite"), count: count,
                                     cities: Self.cities.count)
        }
        let copySeconds = (ContinuousClock.now - copyStart).seconds
        let outline = try await owner.outline()

        let appKey = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL("browser"))
        try await AppRegistryClient(auth: try await directory.connectToAuth(as: ownerKey))
            .register(AppManifest(id: "browser", name: "Browser", publicKey: appKey.publicKey))
        let app = try await directory.connectToPicker(as: appKey, timeout: .seconds(120))

        note("measuring (\(repeats) calls each)")
        // A pick: from the app's request to the first thumbnail of the owner's sheet; then cancelled.
        var pickTimes: [Double] = []
        for round in 0...repeats {
            let start = ContinuousClock.now
            async let picked = PhotoPicker(connection: app).pick(PickerConfiguration(selectionLimit: 1))
            guard let pending = try await owner.pendingPicks(waitingUpTo: .seconds(60)).first else { throw ValidationError("the pick never reached the owner") }
            let first = try await owner.assetPage(pick: pending.pick, limit: 60)
            if let asset = first.assets.first { _ = try await owner.thumbnail(of: asset.identifier) }
            if round > 0 { pickTimes.append((ContinuousClock.now - start).seconds) }  // the first warms up
            try await owner.cancel(pending.pick)
            _ = try await picked
        }
        // The searches, in a sheet left open for them.
        async let sheet = PhotoPicker(connection: app).pick(PickerConfiguration(selectionLimit: 0))
        guard let open = try await owner.pendingPicks(waitingUpTo: .seconds(60)).first else { throw ValidationError("the pick never reached the owner") }
        let zone = TimeZone.current.identifier
        var rows: [(text: String, what: String, found: Int, first: Double, next: Double?)] = []
        for search in Self.searches {
            let request = ListAssetsRequest(pick: open.pick, limit: 60, search: search.text, timeZone: zone)
            var found = 0, next: String?
            let first = try await median {
                let page = try await owner.assetPage(request)
                if let asset = page.assets.first { _ = try await owner.thumbnail(of: asset.identifier) }
                (found, next) = (page.assets.count, page.next)
            }
            var following: Double?
            if let next {
                var continued = request
                continued.after = next
                following = try await median { _ = try await owner.assetPage(continued) }
            }
            rows.append((search.text, search.what, found, first, following))
        }
        try await owner.cancel(open.pick)
        _ = try await sheet

        func milliseconds(_ value: Double) -> String { String(format: "%9.2f ms", value * 1000) }
        print("bench browse: \(count) assets (place search \(outline.placeSearch ? "on" : "off")); medians of \(repeats) calls")
        print(String(format: "  import                               %9.0f files/s (%d files, %.1f s)", Double(files) / importSeconds, files, importSeconds))
        if files < count { print(String(format: "  catalog rows copied                  %9d (%.1f s)", count - files, copySeconds)) }
        print("  pick request → first thumbnail       \(milliseconds(BenchStatistics.median(pickTimes)))")
        for row in rows {
            let label = "\"\(row.text)\" (\(row.what))".padding(toLength: 40, withPad: " ", startingAt: 0)
            let next = row.next.map { ", next page " + milliseconds($0) } ?? ""
            print("  search \(label) → first results \(milliseconds(row.first)) (\(row.found) on the first page\(next))")
        }
        print(String(format: "  peak memory: picker %.1f MiB", Double(ProcessMemory.peakResidentBytes(of: processes.picker.processIdentifier) ?? 0) / 1_048_576))
    }

    /// The EXIF of photo `index`: newest last, ten years back from 2026 in equal steps; cities and
    /// cameras in turn.
    static func tags(of index: Int, count: Int) -> GeotaggedPNG.Tags {
        var seconds = time_t(captureTime(of: index, count: count))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let taken = String(format: "%04d:%02d:%02d %02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                           parts.tm_hour, parts.tm_min, parts.tm_sec)
        let city = cities[index % cities.count], camera = cameras[index % cameras.count]
        return GeotaggedPNG.Tags(make: camera.0, model: camera.1, taken: taken, latitude: city.latitude, longitude: city.longitude)
    }

    /// When photo `index` was taken, in seconds since 1970: ten years back from 2026 in equal steps.
    static func captureTime(of index: Int, count: Int) -> Int {
        let end = 1_767_225_600.0  // 2026-01-01T00:00:00Z
        let span = 10 * 365.25 * 86_400
        return Int(end - span + span * Double(index + 1) / Double(max(count, 1)))
    }

    func median(_ call: () async throws -> Void) async throws -> Double {
        try await BenchStatistics.medianSeconds(of: repeats, call)
    }
}

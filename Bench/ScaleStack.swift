import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import LightboxTransport

/// The services of one `bench scale` setup, on ipc endpoints in their own folder, with the clients
/// the measurements use: the owner, an app with full access, a limited app whose selection holds
/// assets, and one whose selection follows an album of the same assets.
final class ScaleStack: @unchecked Sendable {
    let setup: ScaleSetup
    let directory: ServiceDirectory
    let processes: ServiceProcesses
    let owner: OwnerSurface
    private let settings: OwnerSettings
    private let registry: AppRegistryClient
    private(set) var identifiers: [String] = []
    private(set) var full: PhotoLibrary!
    private(set) var limited: PhotoLibrary!
    private(set) var follower: PhotoLibrary!
    /// Cursors nine tenths of the way through library.query's pages and through the owner's (a deep page).
    private(set) var deepQueryCursor: String?
    private(set) var deepOwnerCursor: String?
    /// The large movie's item provider, picked by the full-access app.
    private(set) var movie: ItemProvider?

    init(_ setup: ScaleSetup, in work: URL) async throws {
        self.setup = setup
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        directory = ServiceDirectory(dataDirectory: work.appendingPathComponent("data"), authEndpoint: "ipc://\(work.path)/auth.sock",
                                     pickerEndpoint: "ipc://\(work.path)/picker.sock")
        processes = try ServiceProcesses(data: directory.dataDirectory.path, authEndpoint: directory.authEndpoint,
                                         pickerEndpoint: directory.pickerEndpoint, importFolders: [], logLevel: "warning",
                                         extraAuthArguments: setup.authArguments, extraPickerArguments: setup.pickerArguments)
        processes.stopOnInterrupt()
        _ = try await directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(60))
        // The picker writes its key once its catalog is ready (on PostgreSQL, after its migrations).
        _ = try await directory.keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(60))
        let ownerKey = try directory.ownerKeyPair()
        owner = OwnerSurface(picker: try await directory.connectToPicker(as: ownerKey, timeout: .seconds(600)))
        settings = OwnerSettings(auth: try await directory.connectToAuth(as: ownerKey, timeout: .seconds(600)))
        registry = AppRegistryClient(auth: try await directory.connectToAuth(as: ownerKey))
    }

    /// Imports one folder through the owner's operation; its seconds.
    func importFolder(_ folder: URL) async throws -> Double {
        let start = ContinuousClock.now
        let summary = try await owner.importLibrary(at: folder.path)
        guard summary.failed.isEmpty else { throw BenchScaleError("\(setup.name): import failed: \(summary.failed[0].message)") }
        identifiers += summary.imported
        return (ContinuousClock.now - start).seconds
    }

    /// Registers the three apps and gives them their access (the first `selection` assets).
    func makeApps(selection: Int) async throws {
        full = try await app("scale", access: SetAccessRequest(app: "scale", readWrite: .full))
        let selected = Array(identifiers.prefix(min(selection, identifiers.count)))
        limited = try await app("scalelimited", access: SetAccessRequest(app: "scalelimited", readWrite: .limited, selection: selected))
        let album = try await full.createAlbum(title: "bench scale")
        for start in stride(from: 0, to: selected.count, by: 1_000) {
            try await full.add(Array(selected[start..<min(start + 1_000, selected.count)]), toAlbum: album.identifier)
        }
        follower = try await app("scalealbum", access: SetAccessRequest(app: "scalealbum", readWrite: .limited, albums: [album.identifier]))
    }

    /// Walks library.query's and the owner's pages nine tenths of the way, keeping the cursors there.
    func findDeepCursors(count: Int) async throws {
        var queried = 0
        while queried < count * 9 / 10 {
            var step = AssetQuery(limit: 1000)
            step.after = deepQueryCursor
            let page = try await full.fetchAssets(step)
            queried += page.assets.count
            guard let next = page.next else { break }
            deepQueryCursor = next
        }
        var walked = 0
        while walked < count * 9 / 10 {
            let page = try await owner.assetPage(limit: ListAssetsRequest.maximumLimit, after: deepOwnerCursor)
            walked += page.assets.count
            guard let next = page.next else { break }
            deepOwnerCursor = next
        }
    }

    /// The full-access app picks the movie (the owner chooses it), keeping its item provider.
    func pickMovie() async throws {
        let key = try directory.appKeyPair("scale")
        let connection = try await directory.connectToPicker(as: key, timeout: .seconds(600))
        async let picked = PhotoPicker(connection: connection).pick(PickerConfiguration(filter: .videos))
        guard let pick = try await owner.pendingPicks(waitingUpTo: .seconds(60)).first,
              let asset = try await owner.assets(for: pick.pick).first else {
            throw BenchScaleError("\(setup.name): the movie's pick never reached the owner")
        }
        try await owner.choose([asset.identifier], for: pick.pick)
        guard let item = try await picked.first else { throw BenchScaleError("\(setup.name): the movie's pick came back empty") }
        var provider = ItemProvider(item.itemProvider.descriptor, connection: connection)
        provider.delivery = .stream
        movie = provider
    }

    /// Streams the movie to `destination`; its seconds.
    func loadMovie(to destination: URL) async throws -> Double {
        guard let movie else { throw BenchScaleError("no movie picked") }
        try? FileManager.default.removeItem(at: destination)
        let start = ContinuousClock.now
        _ = try await movie.loadFileRepresentation(to: destination)
        return (ContinuousClock.now - start).seconds
    }

    func peakMemory() -> (picker: Int64, auth: Int64) {
        (ProcessMemory.peakResidentBytes(of: processes.picker.processIdentifier) ?? 0,
         ProcessMemory.peakResidentBytes(of: processes.auth.processIdentifier) ?? 0)
    }

    private func app(_ id: String, access: SetAccessRequest) async throws -> PhotoLibrary {
        let key = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL(id))
        try await registry.register(AppManifest(id: id, name: id, publicKey: key.publicKey, usageReadWrite: "To measure",
                                                preventAutomaticLimitedAccessAlert: true))
        try await settings.setAccess(access)
        return PhotoLibrary(auth: try await directory.connectToAuth(as: key, timeout: .seconds(120)),
                            picker: try await directory.connectToPicker(as: key, timeout: .seconds(120)))
    }
}

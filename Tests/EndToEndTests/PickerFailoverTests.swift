import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization
import TestServers
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An app's client given two pickers of one library (the Freelance pattern): the picker it uses is
/// SIGKILLed, and its reads go on at the other; a write in flight is not sent twice; a token load
/// broken mid-stream finishes at the other picker with the original's bytes; with both dead the
/// app gets `timeout` naming them.
@Suite(.serialized) struct PickerFailoverTests {
    /// Reads go on at the second picker once the first is killed; with both killed, `timeout`.
    @Test func readsGoOnAtTheOtherPickerWhenTheOneInUseIsKilled() async throws {
        let (harness, second, library, connection) = try await Self.twoPickers(withApp: "reader")
        defer {
            connection.close()
            second.stop()
            _ = harness.stop()
        }

        let query = AssetQuery(sort: .oldestFirst)
        let before = try await library.fetchAssets(query)
        #expect(!before.assets.isEmpty)
        #expect(connection.endpoint == harness.directory.pickerEndpoint)

        Self.kill(harness.picker)
        let killed = ContinuousClock.now
        let after = try await library.fetchAssets(query)
        print("failover: the first read after the kill took \(ContinuousClock.now - killed)")
        #expect(after.assets.map(\.identifier) == before.assets.map(\.identifier))
        #expect(connection.endpoint == second.endpoint)
        #expect(connection.deadEndpoints == [harness.directory.pickerEndpoint])
        let identity = try await connection.request(.ping, Empty(), as: ServiceIdentity.self)
        #expect(identity.service == "picker")
        let fetched = try await library.fetchAssets(withLocalIdentifiers: [before.assets[0].identifier])
        #expect(fetched.map(\.identifier) == [before.assets[0].identifier])

        // An app that connects now, with both pickers in LIGHTBOX_PICKER_ENDPOINT, reads through the second.
        let lightbox = try await Lightbox.connect(app: "reader", data: harness.directory.dataDirectory, environment: [
            Lightbox.Environment.authEndpoint: harness.directory.authEndpoint,
            Lightbox.Environment.pickerEndpoint: " \(harness.directory.pickerEndpoint), \(second.endpoint),",
        ])
        defer { lightbox.close() }
        #expect(try await lightbox.library.fetchAssets(query).assets.map(\.identifier) == before.assets.map(\.identifier))

        Self.kill(second.process)
        let failure = await #expect(throws: LightboxError.self) { try await library.fetchAssets(query) }
        #expect(failure?.code == .timeout)
        #expect(failure?.message.contains(harness.directory.pickerEndpoint) == true, "\(failure?.message ?? "")")
        #expect(failure?.message.contains(second.endpoint) == true, "\(failure?.message ?? "")")
    }

    /// `library.create` in flight when its picker is killed ends with `timeout` saying it was not
    /// sent again, and the other picker never files it.
    @Test func aWriteInFlightIsNotSentToTheOtherPicker() async throws {
        let (harness, second, library, connection) = try await Self.twoPickers(withApp: "writer")
        defer {
            connection.close()
            second.stop()
            _ = harness.stop()
        }
        let before = try await library.fetchAssets(AssetQuery()).total

        // Stopped, the picker takes the request into its socket but never answers it.
        Glibc.kill(harness.picker.processIdentifier, SIGSTOP)
        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))
        let created = Task { try await library.createAsset(photo, fileName: "failover.jpg") }
        try await Task.sleep(for: .milliseconds(300))
        Self.kill(harness.picker)
        let failure = await #expect(throws: LightboxError.self) { try await created.value }
        #expect(failure?.code == .timeout)
        #expect(failure?.message.contains("not sent to another picker") == true, "\(failure?.message ?? "")")

        #expect(try await library.fetchAssets(AssetQuery()).total == before)
        #expect(connection.endpoint == second.endpoint)
    }

    /// A token load whose picker is killed after its first chunk finishes at the other picker
    /// (which has the same catalog: a copy made while the first was stopped); the app sees one
    /// stream whose progress never goes back, and the bytes hash as the original.
    @Test func aLoadBrokenMidStreamFinishesAtTheOtherPicker() async throws {
        let (media, original) = try Self.folderWithLargeMovie()
        defer { try? FileManager.default.removeItem(at: media) }

        let harness = try await ServiceHarness.start(importFolders: [original.deletingLastPathComponent()])
        defer { _ = harness.stop() }
        let app = try await harness.registerApp("loader")
        let picked = try await harness.pickProvider(named: "large.mp4", as: app)
        let second = try await Self.startSecondPicker(copyingCatalogOf: harness)
        defer { second.stop() }
        try await Self.loadSurvivesKill(picked.descriptor, of: original, app: "loader", on: harness, second)
    }

    /// The same with two pickers as on two hosts (`SharedLibraryPickers`): the token one picker
    /// issued loads through the other.
    @Test(.enabled(if: PostgresServer.isInstalled && SeaweedFSServer.isInstalled, "needs PostgreSQL and SeaweedFS (make deps)"))
    func aLoadBrokenMidStreamFinishesAtAPickerSharingTheCatalog() async throws {
        let (media, original) = try Self.folderWithLargeMovie()
        defer { try? FileManager.default.removeItem(at: media) }
        let pickers = try await SharedLibraryPickers.start(importFolders: [original.deletingLastPathComponent()])
        defer { pickers.stop() }
        let harness = pickers.harness
        let app = try await harness.registerApp("loader")
        let picked = try await harness.pickProvider(named: "large.mp4", as: app)
        try await Self.loadSurvivesKill(picked.descriptor, of: original, app: "loader", on: harness, pickers.second)
    }

    /// One environment file may list every picker for the clients; a picker binding that list
    /// would fail obscurely, so it is refused with what to set instead.
    @Test func aPickerDoesNotBindTheClientsListOfPickers() throws {
        let picker = ServiceHarness.binaries.appendingPathComponent("lightbox-picker").path
        let list = "ipc:///tmp/lb-never-made/a.sock,ipc:///tmp/lb-never-made/b.sock"
        let fromClients = try SystemdUnitTests.run(picker, ["--data", "/tmp/lb-never-made"], environment: ["LIGHTBOX_PICKER_ENDPOINT": list])
        #expect(fromClients.status != 0)
        #expect(fromClients.output.contains("LIGHTBOX_PICKER_BIND"), "\(fromClients.output)")
        // LIGHTBOX_PICKER_BIND comes first.
        let bind = try SystemdUnitTests.run(picker, ["--data", "/tmp/lb-never-made"],
                                            environment: ["LIGHTBOX_PICKER_ENDPOINT": "ipc:///tmp/lb-never-made/c.sock", "LIGHTBOX_PICKER_BIND": list])
        #expect(bind.status != 0)
        #expect(bind.output.contains(list), "\(bind.output)")
    }

    // MARK: - Helpers

    /// Loads `descriptor` over both pickers with little credit and kills the first picker as the
    /// first bytes arrive.
    static func loadSurvivesKill(
        _ descriptor: ItemProviderDescriptor, of original: URL, app: String, on harness: ServiceHarness, _ second: SecondPicker
    ) async throws {
        let (_, connection) = try await library(for: app, on: harness, second)
        defer { connection.close() }
        var provider = ItemProvider(descriptor, connection: connection)
        provider.delivery = .stream
        let first = harness.picker!
        let seen = Mutex<[LoadProgress]>([])
        let out = harness.root.appendingPathComponent("loaded.mp4")
        let completion = try await provider.loadFileRepresentation(to: out, credit: 2, chunkSize: 64 << 10) { progress in
            let isFirst = seen.withLock { seen in
                defer { seen.append(progress) }
                return seen.isEmpty
            }
            if isFirst { Glibc.kill(first.processIdentifier, SIGKILL) }
        }
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal)
        #expect(connection.endpoint == second.endpoint)
        let size = (try FileManager.default.attributesOfItem(atPath: original.path)[.size] as! NSNumber).int64Value
        #expect(completion.bytes == size)
        #expect(try sha256(out) == (try sha256(original)))
        let completed = seen.withLock { $0.map(\.completed) }
        #expect(completed == completed.sorted(), "progress went back")
        #expect(completed.last == size)
    }

    /// The harness's services, a second picker with a copy of the first's data folder (made while
    /// the first was stopped), and `app`, with full access, on a failover connection over both.
    static func twoPickers(withApp app: String) async throws -> (ServiceHarness, SecondPicker, PhotoLibrary, FailoverConnection) {
        let harness = try await ServiceHarness.start()
        do {
            let second = try await startSecondPicker(copyingCatalogOf: harness)
            _ = try await harness.registerApp(app)
            try await harness.grantFullAccess(to: app, location: .none)
            let (library, connection) = try await library(for: app, on: harness, second)
            return (harness, second, library, connection)
        } catch {
            _ = harness.stop()
            throw error
        }
    }

    /// A temporary folder whose `library` folder holds `large.mp4`, a movie of a few mebibytes
    /// (many chunks at the loads' chunk size), beside an empty `originals` folder.
    static func folderWithLargeMovie() throws -> (folder: URL, movie: URL) {
        let folder = URL(fileURLWithPath: "/tmp/lbe-failover-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("originals"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("library"), withIntermediateDirectories: true)
        let movie = folder.appendingPathComponent("library/large.mp4")
        try SyntheticMovie.write(to: movie, mediaBytes: 8 << 20)
        return (folder, movie)
    }

    /// A second picker whose data folder is a copy of the first's (its keys and catalog, so a token
    /// the first issued is in both), taken while the first picker was stopped.
    static func startSecondPicker(copyingCatalogOf harness: ServiceHarness) async throws -> SecondPicker {
        let data = harness.root.appendingPathComponent("data2")
        try await harness.restartPicker { _ in
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            for folder in ["keys", "picker"] {
                try FileManager.default.copyItem(at: harness.directory.dataDirectory.appendingPathComponent(folder),
                                                 to: data.appendingPathComponent(folder))
            }
        }
        return try await SecondPicker.start(beside: harness, data: data)
    }

    /// A second picker with a data folder of its own holding copies of the first's key files: an
    /// operator copies `keys/picker.key` and `keys/picker.pub`; the auth and owner public keys come along.
    static func startSecondPicker(beside harness: ServiceHarness, copyingKeysOf keys: KeyDirectory, options: [String] = [],
                                  endpoint: String? = nil, executable: URL? = nil) async throws -> SecondPicker {
        let data = harness.root.appendingPathComponent("data2")
        let copies = KeyDirectory(dataDirectory: data)
        try FileManager.default.createDirectory(at: copies.keyURL("x").deletingLastPathComponent(), withIntermediateDirectories: true)
        let files = [keys.keyURL(KeyDirectory.pickerService), keys.publicKeyURL(KeyDirectory.pickerService),
                     keys.publicKeyURL(KeyDirectory.authService), keys.publicKeyURL(KeyDirectory.owner)]
        for file in files {
            try FileManager.default.copyItem(at: file, to: copies.keyURL("x").deletingLastPathComponent().appendingPathComponent(file.lastPathComponent))
        }
        return try await SecondPicker.start(beside: harness, data: data, options: options, endpoint: endpoint, executable: executable)
    }

    /// The app's library through a failover connection over both pickers, the first first.
    static func library(for app: String, on harness: ServiceHarness, _ second: SecondPicker) async throws -> (PhotoLibrary, FailoverConnection) {
        let keyPair = try harness.directory.appKeyPair(app)
        var configuration = FailoverConnection.Configuration(
            endpoints: [harness.directory.pickerEndpoint, second.endpoint],
            serverKey: try await harness.directory.keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(5)), keyPair: keyPair)
        configuration.failoverTime = .seconds(1)
        configuration.launch = ProcessLaunch.id
        let connection = try FailoverConnection(configuration)
        return (PhotoLibrary(auth: try await harness.directory.connectToAuth(as: keyPair), picker: connection), connection)
    }

    static func kill(_ process: Process) {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A second lightbox-picker beside a harness's: its own data folder and endpoint, the harness's
/// auth and picker options.
final class SecondPicker: Sendable {
    let endpoint: String
    let process: Process

    private init(endpoint: String, process: Process) {
        self.endpoint = endpoint
        self.process = process
    }

    /// `options` come after the first picker's, so they replace those they name again; `executable`
    /// replaces lightbox-picker (a script that starts it elsewhere, say).
    static func start(beside harness: ServiceHarness, data: URL, options: [String] = [], endpoint: String? = nil,
                      executable: URL? = nil) async throws -> SecondPicker {
        let endpoint = endpoint ?? "ipc://\(harness.root.path)/picker2.sock"
        let process = Process()
        harness.setExecutable(of: process, executable ?? ServiceHarness.binaries.appendingPathComponent("lightbox-picker"), [
            "--data", data.path, "--log-level", "warning", "--endpoint", endpoint, "--auth-endpoint", harness.directory.authEndpoint,
        ] + harness.pickerArguments + options)
        let log = harness.root.appendingPathComponent("lightbox-picker-2.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.environment = StarterProcess.environmentForChild().merging(harness.environment) { $1 }
        try process.run()
        let picker = SecondPicker(endpoint: endpoint, process: process)
        // Ready once it answers the owner.
        var owner = harness.directory
        owner.pickerEndpoint = endpoint
        let connection = try await owner.connectToPicker(as: try owner.ownerKeyPair(), timeout: .seconds(1))
        defer { connection.close() }
        for attempt in 1...30 {
            do {
                _ = try await connection.request(.ping, Empty(), as: ServiceIdentity.self)
                return picker
            } catch where attempt < 30 {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        picker.stop()
        throw LightboxError(.timeout, "the second picker did not answer; see \(log.path)")
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

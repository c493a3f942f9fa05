import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Logging
import Media
import Synchronization
import TestServers
import Testing

/// Starts the real `lightbox-auth` and `lightbox-picker` executables on temporary ipc endpoints and
/// a temporary data folder, and talks to them through the Swift client like any app or owner.
final class ServiceHarness: @unchecked Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let samples = repository.appendingPathComponent("Samples/library")
    static let extraSamples = repository.appendingPathComponent("Samples/extra")

    /// Where the built executables are: LIGHTBOX_BIN, else beside the test bundle (.build/debug).
    static var binaries: URL {
        if let folder = ProcessInfo.processInfo.environment["LIGHTBOX_BIN"] { return URL(fileURLWithPath: folder) }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    let root: URL
    let directory: ServiceDirectory
    private(set) var auth: Process!
    private(set) var picker: Process!
    /// The picker's options; `start` adds where it keeps its catalog (`TestDatabase`).
    var pickerArguments: [String]
    /// When set, the services and the CLI start under this umask (e.g. "022"), as a shell would start them.
    var umask: String?
    /// Added to the services' environment (NOTIFY_SOCKET, say).
    var environment: [String: String] = [:]
    /// Executables to start instead of the ones in `binaries`, by name (an instrumented picker, say).
    var executables: [String: URL] = [:]
    /// lightbox-auth's options; `start` adds where it keeps its state (`TestDatabase`).
    var authArguments: [String]

    init(tokenLifetime: Int = 3600, promptTimeout: Int = 60, importFolders: [URL] = [ServiceHarness.samples],
         pickerOptions: [String] = [], authOptions: [String] = [], pickerEndpoint: String? = nil, authEndpoint: String? = nil) throws {
        // ipc paths must stay under ~100 characters.
        root = URL(fileURLWithPath: "/tmp/lbe-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        directory = ServiceDirectory(dataDirectory: root.appendingPathComponent("data"), authEndpoint: authEndpoint ?? "ipc://\(root.path)/auth.sock",
                                     pickerEndpoint: pickerEndpoint ?? "ipc://\(root.path)/picker.sock")
        var arguments = ["--token-lifetime", "\(tokenLifetime)"]
        for folder in importFolders { arguments += ["--import", folder.path] }
        pickerArguments = arguments + pickerOptions
        authArguments = ["--prompt-timeout", "\(promptTimeout)"] + authOptions
    }

    /// Starts both services and waits until the picker answers the owner.
    static func start(tokenLifetime: Int = 3600, promptTimeout: Int = 60, importFolders: [URL] = [ServiceHarness.samples],
                      pickerOptions: [String] = [], authOptions: [String] = [], umask: String? = nil,
                      environment: [String: String] = [:], pickerEndpoint: String? = nil, authEndpoint: String? = nil,
                      postgres: Bool = false, beforeStart: (ServiceHarness) throws -> Void = { _ in }) async throws -> ServiceHarness {
        let harness = try ServiceHarness(tokenLifetime: tokenLifetime, promptTimeout: promptTimeout, importFolders: importFolders,
                                         pickerOptions: pickerOptions, authOptions: authOptions, pickerEndpoint: pickerEndpoint,
                                         authEndpoint: authEndpoint)
        harness.umask = umask
        harness.environment = environment
        try await harness.keepAuthStateInTestDatabase(postgres: postgres)
        harness.pickerArguments += try await TestDatabase.arguments(postgres: postgres)
        try beforeStart(harness)
        try harness.startAuth()
        harness.picker = try harness.launch("lightbox-picker", [
            "--endpoint", harness.directory.pickerEndpoint, "--auth-endpoint", harness.directory.authEndpoint,
        ] + harness.pickerArguments)
        try await harness.waitUntilReady()
        // A run on PostgreSQL that quietly kept the catalog in SQLite would prove nothing.
        if TestDatabase.isPostgres || postgres,
           FileManager.default.fileExists(atPath: harness.directory.dataDirectory.appendingPathComponent("picker/catalog.sqlite").path) {
            throw HarnessError("the picker made picker/catalog.sqlite though it was given --database postgres://…")
        }
        return harness
    }

    /// Stops the picker (SIGTERM), checks it exited cleanly, and starts it again on the same data.
    func restartPicker() async throws -> Int32 {
        try await restartPicker(changingCatalog: { [picker] _ in picker!.terminationStatus })
    }

    /// Stops the picker, hands `change` the path of its catalog database while nothing has it open
    /// (a test seam for tests that need rows no import makes quickly), and starts it again.
    func restartPicker<Result>(changingCatalog change: (URL) throws -> Result) async throws -> Result {
        picker.terminate()
        picker.waitUntilExit()
        let result = try change(directory.dataDirectory.appendingPathComponent("picker/catalog.sqlite"))
        picker = try launch("lightbox-picker", [
            "--endpoint", directory.pickerEndpoint, "--auth-endpoint", directory.authEndpoint,
        ] + pickerArguments)
        try await waitUntilReady()
        return result
    }

    /// Adds the options that put lightbox-auth's state in the database under test (`TestDatabase`):
    /// none for SQLite, a new PostgreSQL database otherwise, kept across restarts of auth.
    func keepAuthStateInTestDatabase(postgres: Bool = false) async throws {
        authArguments += try await TestDatabase.arguments(postgres: postgres)
    }

    func startAuth() throws {
        auth = try launch("lightbox-auth", ["--endpoint", directory.authEndpoint] + authArguments)
    }

    func launch(_ name: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        setExecutable(of: process, executables[name] ?? Self.binaries.appendingPathComponent(name),
                      ["--data", directory.dataDirectory.path, "--log-level", "warning"] + arguments)
        let log = root.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        // A test process that dies leaves no services behind: they stop when it is gone.
        process.environment = StarterProcess.environmentForChild().merging(environment) { $1 }
        try process.run()
        return process
    }

    func waitUntilReady() async throws {
        // The auth service writes the owner's key on its first start; the picker its own.
        _ = try await directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        _ = try await directory.keys.publicKey(KeyDirectory.picker, waitingUpTo: .seconds(30))
        let owner = try await ownerConnection(timeout: .seconds(1))
        for attempt in 1...30 {
            do {
                _ = try await owner.request(.ping, Empty(), as: ServiceIdentity.self)
                return
            } catch where attempt < 30 {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    func ownerConnection(timeout: Duration = .seconds(10)) async throws -> DealerConnection {
        try await directory.connectToPicker(as: try directory.ownerKeyPair(), timeout: timeout)
    }

    func owner() async throws -> OwnerSurface {
        OwnerSurface(picker: try await ownerConnection())
    }

    /// Registers an app (key in DATA/apps/ID.key) and connects it to the picker.
    @discardableResult
    func registerApp(
        _ id: String, usageReadWrite: String? = "To test read-write access.", usageAddOnly: String? = "To test adding.",
        preventAutomaticLimitedAccessAlert: Bool = false, timeout: Duration = .seconds(10)
    ) async throws -> DealerConnection {
        let keyPair = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL(id))
        let registry = AppRegistryClient(auth: try await directory.connectToAuth(as: try directory.ownerKeyPair()))
        try await registry.register(AppManifest(
            id: id, name: "App \(id)", publicKey: keyPair.publicKey, usageReadWrite: usageReadWrite, usageAddOnly: usageAddOnly,
            preventAutomaticLimitedAccessAlert: preventAutomaticLimitedAccessAlert))
        return try await directory.connectToPicker(as: keyPair, timeout: timeout)
    }

    /// PhotoLibrary for a registered app, its connections in `launch` (this test process's unless
    /// told otherwise; nil says no launch, as an older client did).
    func library(for app: String, timeout: Duration = .seconds(10), launch: String? = ProcessLaunch.id) async throws -> PhotoLibrary {
        let keyPair = try directory.appKeyPair(app)
        return PhotoLibrary(auth: try await directory.connectToAuth(as: keyPair, timeout: timeout, launch: launch),
                            picker: try await directory.connectToPicker(as: keyPair, timeout: timeout, launch: launch))
    }

    func settings(timeout: Duration = .seconds(10)) async throws -> OwnerSettings {
        OwnerSettings(auth: try await directory.connectToAuth(as: try directory.ownerKeyPair(), timeout: timeout))
    }

    /// Full library access for `app`, with `location`, as the owner gives it when the app asks
    /// for both (its reads then deliver that location).
    func grantFullAccess(to app: String, location: LocationAccess) async throws {
        let library = try await library(for: app)
        let settings = try await settings()
        async let asked = library.requestAccess(for: .readWrite, location: location)
        let prompt = try await openPrompt(settings, app: app)
        try await settings.answer(prompt.prompt, .full, location: location)
        _ = try await asked
    }

    /// The first open prompt (of an app, when given), waiting for it to appear.
    func openPrompt(_ settings: OwnerSettings, app: String? = nil, kind: OwnerPrompt.Kind? = nil) async throws -> OwnerPrompt {
        for _ in 0..<20 {
            let prompts = try await settings.prompts(waitingUpTo: .milliseconds(500))
            if let prompt = prompts.first(where: { (app == nil || $0.app == app) && (kind == nil || $0.kind == kind) }) { return prompt }
        }
        throw LightboxError(.timeout, "no prompt reached the owner")
    }

    /// What a test pick asks for unless it says otherwise: where the items were taken, precisely,
    /// which the harness's owner gives (`pick`, `pickProvider`), so that a delivery is the original
    /// as it was before apps needed consent for it. LocationConsentTests asks otherwise.
    static let preciseLocation = PickerConfiguration(location: .precise)

    /// An app's pick, completed by the owner with whatever `choose` picks from the offered assets.
    func pick(
        as app: DealerConnection, _ configuration: PickerConfiguration = ServiceHarness.preciseLocation,
        choose: @escaping @Sendable ([AssetSummary]) -> [String]
    ) async throws -> [PickedItem] {
        let owner = try await owner()
        async let items = PhotoPicker(connection: app).pick(configuration, timeout: .seconds(30))
        let pick = try await pendingPick(owner)
        try await owner.choose(choose(try await owner.assets(for: pick.pick)), for: pick.pick, location: .precise)
        return try await items
    }

    /// The item provider of one named asset, picked for `app` with this configuration; the owner
    /// may remove metadata (`strip`) and answers its location request with `location`.
    func pickProvider(
        named name: String, as app: DealerConnection, _ configuration: PickerConfiguration = ServiceHarness.preciseLocation,
        strip: MetadataStripping? = nil, location: LocationAccess? = .precise
    ) async throws -> ItemProvider {
        let owner = try await owner()
        async let items = PhotoPicker(connection: app).pick(configuration, timeout: .seconds(30))
        let pick = try await pendingPick(owner)
        let asset = try #require(try await owner.assets(for: pick.pick).first { $0.fileName == name })
        try await owner.choose([asset.identifier], for: pick.pick, stripMetadata: strip, location: location)
        return try #require(try await items.first).itemProvider
    }

    /// The library's asset with this file name.
    func asset(named name: String) async throws -> AssetSummary {
        try #require(try await owner().assets().first { $0.fileName == name })
    }

    func pendingPick(_ owner: OwnerSurface) async throws -> PendingPick {
        for _ in 0..<10 {
            if let pick = try await owner.pendingPicks(waitingUpTo: .seconds(2)).first { return pick }
        }
        throw LightboxError(.timeout, "no pick reached the owner")
    }

    /// Runs the `lightbox` CLI against these services; returns its exit status and output.
    func cli(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        let common = ["--data", directory.dataDirectory.path, "--auth-endpoint", directory.authEndpoint,
                      "--picker-endpoint", directory.pickerEndpoint]
        // Options go after the subcommand path (e.g. `user auto`).
        let split = arguments.firstIndex { $0.hasPrefix("-") } ?? arguments.count
        setExecutable(of: process, Self.binaries.appendingPathComponent("lightbox"),
                      Array(arguments[..<split]) + common + Array(arguments[split...]))
        return try await Self.runToEnd(process)
    }

    /// Starts `process` and waits for it to end; its exit status, output and errors. Waits on
    /// Dispatch's threads, never the test's cooperative pool: a blocked pool could starve the very
    /// task (a scripted owner, say) the command is waiting for.
    static func runToEnd(_ process: Process) async throws -> (status: Int32, output: String, errors: String) {
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let errorData = Mutex(Data())
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().async {
                    errorData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() }
                    group.leave()
                }
                let outputData = output.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: outputData, as: UTF8.self),
                                                String(decoding: errorData.withLock { $0 }, as: UTF8.self)))
            }
        }
    }

    /// Runs `executable` directly, or through `/bin/sh` under `umask` when one is set.
    func setExecutable(of process: Process, _ executable: URL, _ arguments: [String]) {
        if let umask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask); exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
    }

    func peakMemory(of process: Process) -> Int64 {
        ProcessMemory.peakResidentBytes(of: process.processIdentifier) ?? 0
    }

    /// Starts the process's peak resident memory again from what it uses now (Linux's clear_refs 5),
    /// so a later peak shows what happened since, not what start-up took.
    func resetPeakMemory(of process: Process) throws {
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/clear_refs"))
    }

    /// SIGTERM to both; returns their exit statuses (0 = a clean stop).
    @discardableResult
    func stop() -> (auth: Int32, picker: Int32) {
        for process in [picker, auth].compactMap({ $0 }) where process.isRunning { process.terminate() }
        for process in [picker, auth].compactMap({ $0 }) { process.waitUntilExit() }
        let statuses = (auth?.terminationStatus ?? -1, picker?.terminationStatus ?? -1)
        try? FileManager.default.removeItem(at: root)
        return statuses
    }

    func log(_ name: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }
}

extension KeyDirectory {
    static let picker = KeyDirectory.pickerService
}

func sha256(_ url: URL) throws -> String { try SHA256Hasher.hex(fileAt: url) }

extension ServiceHarness {
    /// The metadata of delivered bytes, read the way the picker reads a file.
    func metadata(of data: Data) throws -> MediaMetadata {
        let url = root.appendingPathComponent("delivered-\(UUID().uuidString)")
        try data.write(to: url)
        return try MetadataReader.read(fileAt: url)
    }
}

/// The code of the LightboxError an operation throws, or nil when it succeeds.
func errorCode<T>(_ operation: () async throws -> T) async -> ErrorCode? {
    do {
        _ = try await operation()
        return nil
    } catch let error as LightboxError {
        return error.code
    } catch {
        return ErrorCode(rawValue: "unexpected: \(error)")
    }
}

/// Sleeps until the provider's token has expired (its expiry travels in whole seconds).
func sleep(pastExpiryOf provider: ItemProvider) async throws {
    let left = provider.descriptor.expiresAt.timeIntervalSinceNow + 1.5
    if left > 0 { try await Task.sleep(for: .milliseconds(Int(left * 1000))) }
}

extension OwnerSettings {
    /// The app's audit entries for `operation`, once at least `count` have arrived: reads reach the
    /// trail in batches, a moment after they were served. A line standing for repeats is listed as
    /// each of them.
    func audit(app: String, operation: String, atLeast count: Int) async throws -> [AuditEntry] {
        var found: [AuditEntry] = []
        for _ in 0..<50 {
            found = try await audit(AuditRequest(app: app, operation: operation)).entries.flatMap { line in
                var single = line
                single.times = nil
                single.lastAt = nil
                return Array(repeating: single, count: line.times ?? 1)
            }
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("only \(found.count) \(operation) entries of \(app) reached the audit trail, expected \(count): \(found)")
        return found
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Logging
import Testing

/// Starts the real `lightbox-auth` and `lightbox-picker` executables on temporary ipc endpoints and
/// a temporary data folder, and talks to them through the Swift client like any app or owner.
final class ServiceHarness: @unchecked Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let samples = repository.appendingPathComponent("Samples/library")

    /// Where the built executables are: LIGHTBOX_BIN, else beside the test bundle (.build/debug).
    static var binaries: URL {
        if let folder = ProcessInfo.processInfo.environment["LIGHTBOX_BIN"] { return URL(fileURLWithPath: folder) }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    let root: URL
    let directory: ServiceDirectory
    private(set) var auth: Process!
    private(set) var picker: Process!
    let pickerArguments: [String]

    init(tokenLifetime: Int = 3600, importFolders: [URL] = [ServiceHarness.samples]) throws {
        // ipc paths must stay under ~100 characters.
        root = URL(fileURLWithPath: "/tmp/lbe-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        directory = ServiceDirectory(dataDirectory: root.appendingPathComponent("data"),
                                     authEndpoint: "ipc://\(root.path)/auth.sock", pickerEndpoint: "ipc://\(root.path)/picker.sock")
        var arguments = ["--token-lifetime", "\(tokenLifetime)"]
        for folder in importFolders { arguments += ["--import", folder.path] }
        pickerArguments = arguments
    }

    /// Starts both services and waits until the picker answers the owner.
    static func start(tokenLifetime: Int = 3600, importFolders: [URL] = [ServiceHarness.samples]) async throws -> ServiceHarness {
        let harness = try ServiceHarness(tokenLifetime: tokenLifetime, importFolders: importFolders)
        try harness.startAuth()
        harness.picker = try harness.launch("lightbox-picker", [
            "--endpoint", harness.directory.pickerEndpoint, "--auth-endpoint", harness.directory.authEndpoint,
        ] + harness.pickerArguments)
        try await harness.waitUntilReady()
        return harness
    }

    /// Stops the picker (SIGTERM), checks it exited cleanly, and starts it again on the same data.
    func restartPicker() async throws -> Int32 {
        picker.terminate()
        picker.waitUntilExit()
        let status = picker.terminationStatus
        picker = try launch("lightbox-picker", [
            "--endpoint", directory.pickerEndpoint, "--auth-endpoint", directory.authEndpoint,
        ] + pickerArguments)
        try await waitUntilReady()
        return status
    }

    func startAuth() throws {
        auth = try launch("lightbox-auth", ["--endpoint", directory.authEndpoint])
    }

    func launch(_ name: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.binaries.appendingPathComponent(name)
        process.arguments = ["--data", directory.dataDirectory.path, "--log-level", "warning"] + arguments
        let log = root.appendingPathComponent("\(name).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    func waitUntilReady() async throws {
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
    func registerApp(_ id: String, timeout: Duration = .seconds(10)) async throws -> DealerConnection {
        let keyPair = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL(id))
        let registry = AppRegistryClient(auth: try await directory.connectToAuth(as: try directory.ownerKeyPair()))
        try await registry.register(AppManifest(id: id, name: "App \(id)", publicKey: keyPair.publicKey, usageReadWrite: "Tests"))
        return try await directory.connectToPicker(as: keyPair, timeout: timeout)
    }

    /// An app's pick, completed by the owner with whatever `choose` picks from the offered assets.
    func pick(
        as app: DealerConnection, _ configuration: PickerConfiguration = PickerConfiguration(),
        choose: @escaping @Sendable ([AssetSummary]) -> [String]
    ) async throws -> [PickedItem] {
        let owner = try await owner()
        async let items = PhotoPicker(connection: app).pick(configuration, timeout: .seconds(30))
        let pick = try await pendingPick(owner)
        try await owner.choose(choose(try await owner.assets(for: pick.pick)), for: pick.pick)
        return try await items
    }

    func pendingPick(_ owner: OwnerSurface) async throws -> PendingPick {
        for _ in 0..<10 {
            if let pick = try await owner.pendingPicks(waitingUpTo: .seconds(2)).first { return pick }
        }
        throw LightboxError(.timeout, "no pick reached the owner")
    }

    /// Runs the `lightbox` CLI against these services; returns its exit status and standard output.
    func cli(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = Self.binaries.appendingPathComponent("lightbox")
        let common = ["--data", directory.dataDirectory.path, "--auth-endpoint", directory.authEndpoint,
                      "--picker-endpoint", directory.pickerEndpoint]
        // Options go after the subcommand path (e.g. `user auto`).
        let split = arguments.firstIndex { $0.hasPrefix("-") } ?? arguments.count
        process.arguments = Array(arguments[..<split]) + common + Array(arguments[split...])
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    func peakMemory(of process: Process) -> Int64 {
        ProcessMemory.peakResidentBytes(of: process.processIdentifier) ?? 0
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

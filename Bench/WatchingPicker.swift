import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxTransport

/// lightbox-auth and a lightbox-picker watching a folder (`--watch`), for the benches that time
/// watched folders: the picker logs at info level into a file, where its catch-up summaries
/// ("caught up with the watched folders files=… read=…") say when a scan is done.
final class WatchingPicker {
    let directory: ServiceDirectory
    let folder: URL
    let auth: Process
    private(set) var picker: Process
    let log: URL
    /// When the picker was last started.
    private(set) var started = ContinuousClock.now

    init(in work: URL, watching folder: URL) async throws {
        directory = ServiceDirectory(dataDirectory: work.appendingPathComponent("data"), authEndpoint: "ipc://\(work.path)/auth.sock",
                                     pickerEndpoint: "ipc://\(work.path)/picker.sock")
        self.folder = folder
        log = work.appendingPathComponent("picker.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        auth = try Self.launch("lightbox-auth", ["--data", directory.dataDirectory.path, "--endpoint", directory.authEndpoint,
                                                 "--log-level", "warning"], log: work.appendingPathComponent("auth.log"))
        _ = try await directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        picker = Process()
        try startPicker()
    }

    func startPicker() throws {
        started = .now
        picker = try Self.launch("lightbox-picker", [
            "--data", directory.dataDirectory.path, "--endpoint", directory.pickerEndpoint, "--auth-endpoint", directory.authEndpoint,
            "--watch", folder.path, "--log-level", "info",
        ], log: log)
    }

    func stopPicker() {
        if picker.isRunning { picker.terminate() }
        picker.waitUntilExit()
    }

    func stop() {
        stopPicker()
        if auth.isRunning { auth.terminate() }
        auth.waitUntilExit()
    }

    /// Waits for the picker's `number`th catch-up summary since the log began; returns it and the
    /// seconds since the picker started.
    func catchUp(number: Int, timeout: Duration = .seconds(3600)) async throws -> (line: String, seconds: Double) {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains("caught up with the watched folders") }
            if lines.count >= number { return (String(lines[number - 1]), (ContinuousClock.now - started).seconds) }
            guard picker.isRunning else { throw ValidationError("lightbox-picker \(picker.exitDescription) during the scan") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ValidationError("the picker did not catch up with \(folder.path) within \(timeout)")
    }

    /// The value of `key` in a log line's metadata (`key=value`), if it has it.
    static func value(_ key: String, in line: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    var peakMebibytes: Double {
        Double(ProcessMemory.peakResidentBytes(of: picker.processIdentifier) ?? 0) / 1_048_576
    }

    private static func launch(_ name: String, _ arguments: [String], log: URL) throws -> Process {
        let process = Process()
        process.executableURL = ServiceProcesses.binaryFolder.appendingPathComponent(name)
        process.arguments = arguments
        process.environment = StarterProcess.environmentForChild()
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        return process
    }
}

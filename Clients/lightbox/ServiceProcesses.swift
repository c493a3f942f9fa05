import Foundation
import LightboxTransport

/// lightbox-auth and lightbox-picker as child processes, found beside this executable.
final class ServiceProcesses: @unchecked Sendable {
    let auth: Process
    let picker: Process
    /// The owner's web surface, when started (`startSurface`).
    private(set) var surface: Process?

    /// The folder holding `lightbox`, `lightbox-auth` and `lightbox-picker`.
    static var binaryFolder: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    init(data: String, authEndpoint: String, pickerEndpoint: String, importFolders: [String], logLevel: String = "info",
         extraPickerArguments: [String] = []) throws {
        let common = ["--data", data, "--log-level", logLevel]
        auth = try Self.start("lightbox-auth", common + ["--endpoint", authEndpoint])
        var pickerArguments = common + ["--endpoint", pickerEndpoint, "--auth-endpoint", authEndpoint] + extraPickerArguments
        for folder in importFolders { pickerArguments += ["--import", folder] }
        do {
            picker = try Self.start("lightbox-picker", pickerArguments)
        } catch {
            auth.terminate()
            throw error
        }
    }

    private static func start(_ name: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = binaryFolder.appendingPathComponent(name)
        process.arguments = arguments
        try process.run()
        return process
    }

    /// Starts lightbox-surface on `listen` against these services.
    func startSurface(data: String, listen: String, authEndpoint: String, pickerEndpoint: String, logLevel: String) throws {
        surface = try Self.start("lightbox-surface", ["--data", data, "--listen", listen, "--auth-endpoint", authEndpoint,
                                                      "--picker-endpoint", pickerEndpoint, "--log-level", logLevel])
    }

    var isRunning: Bool { auth.isRunning && picker.isRunning && (surface?.isRunning ?? true) }

    /// SIGTERM to all (graceful stop), then waits for them.
    func stop() {
        let all = [surface, picker, auth].compactMap { $0 }
        for process in all where process.isRunning { process.terminate() }
        for process in all { process.waitUntilExit() }
    }
}

import ArgumentParser
import Foundation
import LightboxClient
import LightboxTransport

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start lightbox-auth and lightbox-picker in the foreground; Ctrl-C stops both cleanly.",
        discussion: "Serves from the data directory (default ./var: SQLite databases and keys) and imports the sample library first.")

    @OptionGroup var services: ServiceOptions
    @Option(help: "Folders to import before serving (repeatable). Default: Samples/library when it exists.")
    var library: [String] = []
    @Option(help: "Log level of both services.") var logLevel = "info"

    func run() async throws {
        var folders = library
        if folders.isEmpty, FileManager.default.fileExists(atPath: "Samples/library") { folders = ["Samples/library"] }
        try FileManager.default.createDirectory(atPath: services.data, withIntermediateDirectories: true)
        let shutdown = ShutdownSignal.onTerminationSignals()
        let processes = try ServiceProcesses(
            data: services.data, authEndpoint: services.authEndpoint, pickerEndpoint: services.pickerEndpoint,
            importFolders: folders.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, logLevel: logLevel)
        note("lightbox-auth on \(services.authEndpoint), lightbox-picker on \(services.pickerEndpoint), data in \(services.data). Ctrl-C stops both.")
        // Stop when asked, or as soon as either service exits on its own.
        while !shutdown.isTriggered, processes.isRunning {
            try? await Task.sleep(for: .milliseconds(200))
        }
        let crashed = !shutdown.isTriggered
        processes.stop()
        if crashed {
            note("a service exited on its own (auth status \(processes.auth.terminationStatus), picker status \(processes.picker.terminationStatus)); stopped the other")
            throw ExitCode.failure
        }
        note("stopped")
    }
}

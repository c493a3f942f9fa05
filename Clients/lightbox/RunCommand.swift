import ArgumentParser
import Foundation
import LightboxClient
import LightboxTransport

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start lightbox-auth, lightbox-picker and the owner's web surface in the foreground; Ctrl-C stops them cleanly.",
        discussion: """
        Serves from the data directory (default ./var: SQLite databases and keys) and imports the sample library first. \
        Prints the surface's one-time login address: open it in a browser on this machine to answer picks and prompts.
        """)

    @OptionGroup var services: ServiceOptions
    @Option(help: "Folders to import before serving (repeatable). Default: Samples/library when it exists.")
    var library: [String] = []
    @Option(help: "Log level of the services.") var logLevel = "info"
    @Option(help: "Where the web surface listens (127.0.0.1:PORT).") var listen = "127.0.0.1:7710"
    @Flag(help: "Do not start the web surface.") var noSurface = false

    func run() async throws {
        var folders = library
        if folders.isEmpty, FileManager.default.fileExists(atPath: "Samples/library") { folders = ["Samples/library"] }
        try FileManager.default.createDirectory(atPath: services.data, withIntermediateDirectories: true)
        let shutdown = ShutdownSignal.onTerminationSignals()
        let processes = try ServiceProcesses(
            data: services.data, authEndpoint: services.authEndpoint, pickerEndpoint: services.pickerEndpoint,
            importFolders: folders.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, logLevel: logLevel)
        note("lightbox-auth on \(services.authEndpoint), lightbox-picker on \(services.pickerEndpoint), data in \(services.data). Ctrl-C stops them.")
        if !noSurface {
            let loginFile = SurfaceLogin(dataDirectory: URL(fileURLWithPath: services.data)).loginURLFile
            try? FileManager.default.removeItem(at: loginFile)
            try processes.startSurface(data: services.data, listen: listen, authEndpoint: services.authEndpoint,
                                       pickerEndpoint: services.pickerEndpoint, logLevel: logLevel)
            for _ in 0..<300 where !FileManager.default.fileExists(atPath: loginFile.path) && processes.isRunning {
                try? await Task.sleep(for: .milliseconds(100))
            }
            if let url = try? String(contentsOf: loginFile, encoding: .utf8) {
                note("the owner's surface: open \(url.trimmingCharacters(in: .whitespacesAndNewlines)) (works once; `lightbox user login` makes another)")
            }
        }
        // Stop when asked, or as soon as either service exits on its own.
        while !shutdown.isTriggered, processes.isRunning {
            try? await Task.sleep(for: .milliseconds(200))
        }
        let crashed = !shutdown.isTriggered
        processes.stop()
        if crashed {
            note("a service exited on its own (auth status \(processes.auth.terminationStatus), picker status \(processes.picker.terminationStatus)); stopped the others")
            throw ExitCode.failure
        }
        note("stopped")
    }
}

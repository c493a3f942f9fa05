import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxTransport
import Logging
import ServiceLifecycle

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
        // One service in a ServiceGroup: Ctrl-C or SIGTERM shut it down gracefully.
        // One picker runs here: the first of a list of several.
        let local = LocalServices(data: services.data, authEndpoint: services.authEndpoint, pickerEndpoint: services.directory.pickerEndpoint,
                                  importFolders: folders, logLevel: logLevel, listen: listen, startsSurface: !noSurface)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: local)], gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "lightbox.run")))
        try await group.run()
    }
}

/// The three processes `lightbox run` starts, watched until the group shuts down or one exits.
private struct LocalServices: Service {
    let data: String
    let authEndpoint: String
    let pickerEndpoint: String
    let importFolders: [String]
    let logLevel: String
    let listen: String
    let startsSurface: Bool

    func run() async throws {
        let processes = try ServiceProcesses(
            data: data, authEndpoint: authEndpoint, pickerEndpoint: pickerEndpoint,
            importFolders: importFolders.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, logLevel: logLevel)
        note("lightbox-auth on \(authEndpoint), lightbox-picker on \(pickerEndpoint), data in \(data). Ctrl-C stops them.")
        if startsSurface {
            let loginFile = SurfaceLogin(dataDirectory: URL(fileURLWithPath: data)).loginURLFile
            try? FileManager.default.removeItem(at: loginFile)
            try processes.startSurface(data: data, listen: listen, authEndpoint: authEndpoint,
                                       pickerEndpoint: pickerEndpoint, logLevel: logLevel)
            for _ in 0..<300 where !FileManager.default.fileExists(atPath: loginFile.path) && processes.isRunning {
                try? await Task.sleep(for: .milliseconds(100))
            }
            if let url = try? String(contentsOf: loginFile, encoding: .utf8) {
                note("the owner's surface: open \(url.trimmingCharacters(in: .whitespacesAndNewlines)) (works once; `lightbox user login` makes another)")
            }
        }
        // Until asked to stop, a service that fails (a signal or a non-zero status) is started again,
        // as systemd's Restart=on-failure does, after a pause that doubles while it keeps failing.
        var restarts = ServiceRestarts()
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            for service in ServiceProcesses.Service.allCases {
                guard let process = processes.process(service), !process.isRunning, !Task.isShuttingDownGracefully else { continue }
                if process.terminationReason == .exit, process.terminationStatus == 0 {
                    // Stopped by someone else (a SIGTERM not from here): not a failure to repair.
                    processes.stop()
                    note("\(service.rawValue) stopped on its own; stopped the others")
                    throw ExitCode.failure
                }
                let delay = restarts.delay(for: service)
                note("\(service.rawValue) \(process.exitDescription); starting it again in \(delay)")
                try? await Task.sleep(for: delay)
                guard !Task.isShuttingDownGracefully, !Task.isCancelled else { break }
                do {
                    try processes.restart(service)
                } catch {
                    note("could not start \(service.rawValue) again: \(error)")
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        processes.stop()
        note("stopped")
    }
}

/// How long `lightbox run` waits before starting a service that exited again: 1 s, doubling with
/// each exit that follows within a minute of the last start, up to 30 s.
struct ServiceRestarts {
    private var last: [ServiceProcesses.Service: (started: ContinuousClock.Instant, delay: Duration)] = [:]

    mutating func delay(for service: ServiceProcesses.Service) -> Duration {
        let now = ContinuousClock.now
        var delay = Duration.seconds(1)
        if let previous = last[service], now - previous.started < .seconds(60) {
            delay = min(previous.delay * 2, .seconds(30))
        }
        last[service] = (now + delay, delay)
        return delay
    }
}

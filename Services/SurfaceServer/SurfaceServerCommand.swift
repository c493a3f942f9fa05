import ArgumentParser
import Foundation
import LightboxClient
import LightboxServiceRuntime
import LightboxTransport
import Logging
import ServiceLifecycle
import Surface

@main
struct SurfaceServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox-surface",
        abstract: "The owner's web surface on loopback: the pick sheet, authorization alerts, privacy center, activity and library.",
        discussion: """
        Holds the owner key (from the data directory) and talks to lightbox-auth and lightbox-picker like any other \
        owner client. On start it prints a one-time login address (also written to DATA/surface/login-url); \
        `lightbox user login` makes a new one. Only 127.0.0.1 / localhost are served.

        When an app files a pick or asks for access and no page of the surface is open, it asks the desktop to \
        show the sheet: it runs --open-command with a fresh one-time login address (once per pick or prompt, at \
        most once every few seconds).
        """)

    @Option(help: "Data directory with the keys. Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"
    @Option(help: "Address to serve on: 127.0.0.1:PORT (loopback only). Env: LIGHTBOX_SURFACE_LISTEN.")
    var listen = ProcessInfo.processInfo.environment["LIGHTBOX_SURFACE_LISTEN"] ?? "127.0.0.1:7710"
    @Option(help: "lightbox-auth's endpoint. Env: LIGHTBOX_AUTH_ENDPOINT.")
    var authEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? ServiceDirectory.defaultAuthEndpoint
    @Option(help: "lightbox-picker's endpoint, or the pickers of one library separated by commas (the pages go on at the next when one stops answering). Env: LIGHTBOX_PICKER_ENDPOINT.")
    var pickerEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_ENDPOINT"] ?? ServiceDirectory.defaultPickerEndpoint
    @Option(help: ArgumentHelp(
        "What opens the sheet when something waits and no page is open: a program and its arguments; the login address replaces %u or is added last. none: never. Env: LIGHTBOX_SURFACE_OPEN_COMMAND.",
        valueName: "command"))
    var openCommand = ProcessInfo.processInfo.environment[DesktopOpenCommand.environment] ?? DesktopOpenCommand.defaultText
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(name: .customLong("metrics"), help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9710). Env: LIGHTBOX_SURFACE_METRICS.")
    var metricsOption: String?
    /// `--metrics`, else `LIGHTBOX_SURFACE_METRICS`.
    var metrics: String? { metricsOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_SURFACE_METRICS"] }

    func run() async throws {
        let parts = listen.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port),
              ["127.0.0.1", "localhost"].contains(String(parts[0])) else {
            throw ValidationError("--listen takes 127.0.0.1:PORT: the surface is the owner's alone and serves loopback only.")
        }
        let opener: DesktopOpenCommand?
        do { opener = try DesktopOpenCommand.parse(openCommand) } catch { throw ValidationError("--open-command: \(error.message)") }
        PrivateDataFolder.restrictNewFiles()
        ServiceLogging.bootstrap(level: Logger.Level(name: logLevel) ?? .info)
        let logger = Logger(label: "lightbox.surface")
        var configuration = Surface.Configuration(directory: ServiceDirectory(
            dataDirectory: URL(fileURLWithPath: data), authEndpoint: authEndpoint, pickerEndpoint: pickerEndpoint))
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.openCommand = opener
        configuration.onServing = { [listen] in SystemdNotification.ready(status: "serving on http://\(listen)") }
        var services: [any Service] = []
        if let metrics {
            services.append(try MetricsEndpoint(listen: metrics, registry: ServiceMetrics.bootstrap(), logger: logger))
        }
        services.append(Surface(configuration, logger: logger))
        try await ServiceRunner.run(services, logger: logger)
    }
}

import ArgumentParser
import Auth
import Foundation
import LightboxTransport
import Logging

/// `lightbox-auth`: the authorization service (the control plane).
@main
struct AuthServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox-auth",
        abstract: "Lightbox's authorization service: apps, their library permissions, prompts and the audit trail.",
        discussion: """
        Binds one CURVE-secured ZeroMQ ROUTER endpoint. On first start it creates its key pair and the \
        owner's in DATA/keys/. Stops cleanly on Ctrl-C or SIGTERM.
        """)

    @Option(help: "Data directory (keys, auth/auth.sqlite). Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

    @Option(help: "Endpoint to bind (tcp://host:port or ipc://path). Env: LIGHTBOX_AUTH_ENDPOINT.")
    var endpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? "tcp://127.0.0.1:7711"

    @Option(help: "Seconds a prompt waits for the owner before the app gets a timeout (status stays notDetermined).")
    var promptTimeout = 120

    @Option(help: "Seconds between keep-alives to open watches (finds watchers whose connection is gone).")
    var watchKeepAlive = 30

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    func validate() throws {
        guard promptTimeout > 0 else { throw ValidationError("--prompt-timeout must be at least 1 second") }
    }

    func run() async throws {
        ServiceLogging.bootstrap(level: Logger.Level(name: logLevel) ?? .info)
        let logger = Logger(label: "lightbox.auth")
        let tightened = try PrivateDataFolder.secure(URL(fileURLWithPath: data))
        if tightened > 0 { logger.notice("made the data folder private", metadata: ["modesChanged": "\(tightened)"]) }
        let shutdown = ShutdownSignal.onTerminationSignals()
        var configuration = AuthService.Configuration(dataDirectory: URL(fileURLWithPath: data), endpoint: endpoint)
        configuration.promptTimeout = .seconds(promptTimeout)
        configuration.watchKeepAlive = .seconds(max(watchKeepAlive, 1))
        let service = try AuthService(configuration, logger: logger)
        try await service.run(until: shutdown)
    }
}


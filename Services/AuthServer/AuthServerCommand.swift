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
        abstract: "Lightbox's authorization service: the app registry and (soon) library permissions.",
        discussion: """
        Binds one CURVE-secured ZeroMQ ROUTER endpoint. On first start it creates its key pair and the \
        owner's in DATA/keys/. Stops cleanly on Ctrl-C or SIGTERM.
        """)

    @Option(help: "Data directory (keys, auth/auth.sqlite). Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

    @Option(help: "Endpoint to bind (tcp://host:port or ipc://path). Env: LIGHTBOX_AUTH_ENDPOINT.")
    var endpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? "tcp://127.0.0.1:7711"

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    func run() async throws {
        ServiceLogging.bootstrap(level: Logger.Level(name: logLevel) ?? .info)
        let logger = Logger(label: "lightbox.auth")
        let shutdown = ShutdownSignal.onTerminationSignals()
        let service = try AuthService(.init(dataDirectory: URL(fileURLWithPath: data), endpoint: endpoint), logger: logger)
        try await service.run(until: shutdown)
    }
}


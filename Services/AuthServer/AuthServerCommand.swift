import ArgumentParser
import Auth
import Foundation
import LightboxPostgres
import LightboxProtocol
import LightboxServiceRuntime
import LightboxTransport
import Logging
import ServiceLifecycle

/// `lightbox-auth`: the authorization service (the control plane).
@main
struct AuthServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox-auth",
        abstract: "Lightbox's authorization service: apps, their library permissions, prompts and the audit trail.",
        discussion: """
        Binds one CURVE-secured ZeroMQ ROUTER endpoint. On first start it creates its key pair and the \
        owner's in DATA/keys/. Stops cleanly on Ctrl-C or SIGTERM: new requests are refused, running ones \
        get a few seconds to finish. Under systemd (Type=notify) it reports READY=1 once the endpoint is bound.

        State (apps, grants, selections, the change log, the audit trail) is kept in DATA/auth/auth.sqlite, \
        or with --database in a PostgreSQL database, so that a new lightbox-auth process, on this host or \
        another, can take over with nothing lost (give it the same keys in DATA/keys/). The password, if the \
        server asks for one, is read from PGPASSWORD; a server that cannot be reached at start stops \
        lightbox-auth with a message and a non-zero exit status.
        """)

    @Option(help: "Data directory (keys, auth/auth.sqlite). Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

    @Option(help: ArgumentHelp(
        "Keep the state in this PostgreSQL database instead of DATA/auth/auth.sqlite (password from PGPASSWORD). Env: LIGHTBOX_AUTH_DATABASE.",
        valueName: "postgres://USER@HOST:PORT/DB"))
    var database: String?

    @Option(help: "Endpoint to bind (tcp://host:port or ipc://path). Env: LIGHTBOX_AUTH_ENDPOINT.")
    var endpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? "tcp://127.0.0.1:7711"

    @Option(help: "Seconds a prompt waits for the owner before the app gets a timeout (status stays notDetermined).")
    var promptTimeout = 120

    @Option(help: "Seconds between keep-alives to open watches (finds watchers whose connection is gone).")
    var watchKeepAlive = 30

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    @Option(name: .customLong("metrics"), help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9711). Env: LIGHTBOX_AUTH_METRICS.")
    var metricsOption: String?
    /// `--metrics`, else `LIGHTBOX_AUTH_METRICS`.
    var metrics: String? { metricsOption ?? ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_METRICS"] }

    @Option(help: "Connections one app may hold to this service at once; one more is refused in its handshake.")
    var maxConnectionsPerApp = 16

    @Option(help: "Seconds running requests get to finish at shutdown before they are cancelled.")
    var shutdownGrace = 5

    @Option(help: ArgumentHelp("Reset an app's library access once it has gone unused this long, as phones do (e.g. 90d, 12h; 0 never resets).",
                               valueName: "span"))
    var resetUnusedAfter = "90d"

    /// `--database`, else LIGHTBOX_AUTH_DATABASE; nil (or empty) keeps SQLite.
    var databaseURL: String? {
        (database ?? ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_DATABASE"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        if let databaseURL {
            do { _ = try PostgresLocation(url: databaseURL) } catch { throw ValidationError(error.message) }
        }
        guard promptTimeout > 0 else { throw ValidationError("--prompt-timeout must be at least 1 second") }
        guard TimeSpan(resetUnusedAfter) != nil else {
            throw ValidationError("--reset-unused-after takes a number and a unit, s, m, h or d (90d, 12h), or 0 for never.")
        }
    }

    func run() async throws {
        ServiceLogging.bootstrap(level: Logger.Level(name: logLevel) ?? .info)
        let logger = Logger(label: "lightbox.auth")
        let tightened = try PrivateDataFolder.secure(URL(fileURLWithPath: data))
        if tightened > 0 { logger.notice("made the data folder private", metadata: ["modesChanged": "\(tightened)"]) }
        var services: [any Service] = []
        if let metrics {
            services.append(try MetricsEndpoint(listen: metrics, registry: ServiceMetrics.bootstrap(), logger: logger))
        }
        var configuration = AuthService.Configuration(dataDirectory: URL(fileURLWithPath: data), endpoint: endpoint)
        configuration.database = try databaseURL.map { try PostgresLocation(url: $0) }
        configuration.promptTimeout = .seconds(promptTimeout)
        configuration.watchKeepAlive = .seconds(max(watchKeepAlive, 1))
        configuration.shutdownGracePeriod = .seconds(max(shutdownGrace, 0))
        configuration.maximumConnectionsPerApp = max(1, maxConnectionsPerApp)
        let unusedSpan = TimeSpan(resetUnusedAfter)?.duration ?? .zero
        configuration.resetUnusedAfter = unusedSpan == .zero ? nil : unusedSpan
        configuration.onServing = { [endpoint] in SystemdNotification.ready(status: "serving on \(endpoint)") }
        services.append(try AuthService(configuration, logger: logger))
        try await ServiceRunner.run(services, gracePeriod: .seconds(max(shutdownGrace, 0) + 10), logger: logger)
    }
}

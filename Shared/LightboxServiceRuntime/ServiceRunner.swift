import Logging
import ServiceLifecycle

/// Runs a service executable's services in one swift-service-lifecycle ServiceGroup: SIGTERM or
/// SIGINT starts a graceful shutdown (services stop in the reverse of the given order), and one
/// that takes longer than `gracePeriod` is escalated to cancellation.
public enum ServiceRunner {
    public static func run(_ services: [any Service], gracePeriod: Duration = .seconds(15), logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        SystemdNotification.send("STATUS=starting")
        defer { SystemdNotification.send("STOPPING=1") }
        try await group.run()
    }
}

import LightboxTransport
import Logging
import ServiceLifecycle

/// Runs a service executable's services in one swift-service-lifecycle ServiceGroup: SIGTERM or
/// SIGINT starts a graceful shutdown (services stop in the reverse of the given order), and one
/// that takes longer than `gracePeriod` is escalated to cancellation. Started by a command that
/// asks for it (`StarterProcess`), the group also shuts down when that command has gone. A service
/// that returns by itself is a failure, unless `returningEndsGracefully` says its return is the end
/// of the work (lightbox-portal when its session bus goes away): then the others stop gracefully.
public enum ServiceRunner {
    public static func run(_ services: [any Service], gracePeriod: Duration = .seconds(15), returningEndsGracefully: Bool = false,
                           logger: Logger) async throws {
        var entries = services.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: returningEndsGracefully ? .gracefullyShutdownGroup : .cancelGroup)
        }
        if let starter = StarterProcess.fromEnvironment() {
            // Last, so that it is the first told to stop when the group shuts down for another reason.
            entries.append(.init(service: ParentWatch(starter: starter), successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var configuration = ServiceGroupConfiguration(services: entries, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        SystemdNotification.send("STATUS=starting")
        defer { SystemdNotification.send("STOPPING=1") }
        try await group.run()
    }
}

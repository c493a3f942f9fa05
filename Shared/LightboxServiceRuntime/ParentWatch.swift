import LightboxTransport
import ServiceLifecycle

/// Ends the service group when the command that started it has gone (`StarterProcess`): the watch
/// returns, and the group shuts down gracefully.
struct ParentWatch: Service {
    /// How often the parent is looked at: a getppid(2) a second costs nothing.
    static let interval: Duration = .seconds(1)

    let starter: StarterProcess

    func run() async throws {
        // A graceful shutdown for another reason cancels the wait, and the watch ends with the rest.
        try? await cancelWhenGracefulShutdown {
            while !starter.hasGone { try await Task.sleep(for: Self.interval) }
        }
    }
}

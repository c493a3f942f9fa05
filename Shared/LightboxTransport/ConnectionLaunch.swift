/// Where a request came from, for grouping an app's connections into launches: its connection,
/// and the launch (one process of the client) the connection said it belongs to (`service.hello`).
/// A connection that said nothing (an older client) is a launch of its own.
public struct ConnectionLaunch: Sendable, Hashable {
    public var connection: String
    public var launch: String?

    public init(connection: String, launch: String? = nil) {
        self.connection = connection
        self.launch = launch
    }

    /// One key per launch: the launch when said, else the connection (prefixed, so the two never meet).
    public var key: String {
        launch.map { "launch " + $0 } ?? "connection " + connection
    }
}

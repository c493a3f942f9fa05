import NIOCore

/// How long the client waits on the store before answering `timeout` instead of hanging.
public struct S3Timeouts: Sendable {
    /// To open a connection.
    public var connect: TimeAmount
    /// With no byte moving either way once a request is under way (also the longest wait for an answer's head).
    public var idle: TimeAmount

    public init(connect: TimeAmount = .seconds(5), idle: TimeAmount = .seconds(30)) {
        self.connect = connect
        self.idle = idle
    }

    var idleSeconds: String { "\(idle.nanoseconds / 1_000_000_000) s" }
}

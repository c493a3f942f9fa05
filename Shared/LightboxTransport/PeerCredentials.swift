import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The process at the other end of a unix-socket connection, as the kernel reports it
/// (`SO_PEERCRED`, taken when the connection is accepted): what it says about itself cannot change it.
/// TCP connections have none.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var processID: Int32
    public var userID: UInt32
    public var groupID: UInt32

    public init(processID: Int32, userID: UInt32, groupID: UInt32) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
    }

    public var description: String { "pid \(processID) uid \(userID) gid \(groupID)" }

    /// The credentials of a unix-socket channel's peer; nil for other channels.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard case .unixDomainSocket = channel.localAddress, let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let credentials: EventLoopFuture<KernelCredentials> = provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return credentials
            .map { Optional(PeerCredentials(processID: $0.pid, userID: $0.uid, groupID: $0.gid)) }
            .recover { _ in nil }
    }
}

/// Linux's `struct ucred` (Glibc's Swift module leaves it out): three 32-bit fields, in this order.
private struct KernelCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

import NIOCore

/// Where an unfinished handshake comes from, for sharing the places among them fairly
/// (`CurveRouterSocket.handshakeStarted`): over a unix socket the peer's process, as the kernel
/// reports it; over TCP its IPv4 address, or its IPv6 /64 (one host commonly holds a whole /64).
/// Strangers from the same source share that source's part: an app connecting over TCP from the
/// flooder's own host or NAT can still be crowded out, one connecting over ipc from its own process cannot.
struct HandshakeSource: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    init(remoteAddress: SocketAddress?, credentials: PeerCredentials?) {
        if let credentials {
            name = "pid \(credentials.processID)"
            return
        }
        switch remoteAddress {
        case .v4(let address)?:
            name = address.host
        case .v6(let address)?:
            // The first 64 bits, as eight bytes in hex.
            let prefix = withUnsafeBytes(of: address.address.sin6_addr) { Array($0.prefix(8)) }
            name = prefix.map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
        default:
            name = "unknown"
        }
    }

    var description: String { name }
}

import Glibc

/// Loopback TCP ports nobody listens on, for the servers the tests start.
///
/// They are chosen below the kernel's ephemeral range (`ip_local_port_range`), where no outgoing
/// connection takes its source port: a port bound to 0 and released comes from that range, and
/// while other suites make thousands of connections (HandshakeFloodTests) one of them took such a
/// port before the server it was meant for could bind it.
public enum FreePorts {
    public static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        let range = portsBelowTheEphemeralRange()
        for _ in 0..<(count * 200) where ports.count < count {
            let port = Int.random(in: range)
            guard !ports.contains(port), let socket = bound(to: port) else { continue }
            sockets.append(socket)
            ports.append(port)
        }
        guard ports.count == count else { throw HarnessError("no \(count) free loopback ports in \(range)") }
        return ports
    }

    /// From 10000 to just below the first ephemeral port (32768 unless the machine says otherwise).
    static func portsBelowTheEphemeralRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let first = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return 10000...max(first - 1, 20000)
    }

    /// A socket bound to `port` on loopback, or nil when something else has it.
    static func bound(to port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); return nil }
        return fd
    }

    /// A socket listening on a loopback port; returns it and its port.
    /// With `keep`, it stays listening (and never accepts: a peer that connects but never answers).
    public static func listen(backlog: Int32, keep: Bool) throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { close(fd); throw HarnessError("bind: \(errno)") }
        if keep { Glibc.listen(fd, backlog) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

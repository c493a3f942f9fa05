import Glibc

/// Loopback TCP ports nobody listens on: each bound to port 0 at once, read back, then released.
public enum FreePorts {
    public static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let (socket, port) = try listen(backlog: 0, keep: false)
            sockets.append(socket)
            ports.append(port)
        }
        return ports
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

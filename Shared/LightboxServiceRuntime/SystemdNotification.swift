import Foundation

/// systemd's notify protocol (`Type=notify` units): a datagram to the socket in `$NOTIFY_SOCKET`.
/// Without that variable (not started by systemd) nothing is sent.
public enum SystemdNotification {
    /// Tells systemd the service is ready: its endpoint is bound and requests are served.
    public static func ready(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    /// Sends `state` (newline-separated KEY=VALUE lines); returns whether a datagram went out.
    @discardableResult
    public static func send(_ state: String) -> Bool {
        guard var path = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !path.isEmpty else { return false }
        // "@name" is a socket in the abstract namespace: its address starts with a NUL byte.
        let isAbstract = path.hasPrefix("@")
        if isAbstract { path.removeFirst() }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let offset = isAbstract ? 1 : 0
        guard pathBytes.count + offset < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index + offset] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + offset + pathBytes.count + (isAbstract ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
        return sent == message.count
    }
}

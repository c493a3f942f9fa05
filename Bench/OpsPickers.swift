import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxTransport

/// `bench ops --pickers 2`: both services on a throwaway PostgreSQL and the originals in a throwaway
/// SeaweedFS (as `bench scale --database postgres --originals s3` starts them), and a second
/// lightbox-picker beside the first on the same database and bucket, as on a second host: a data
/// folder of its own holding copies of the key files an operator copies, and a cache of its own.
final class OpsPickers: @unchecked Sendable {
    let servers = ThrowawayServers()
    /// Options for lightbox-auth and for the first picker.
    private(set) var authArguments: [String] = []
    private(set) var pickerArguments: [String] = []
    private(set) var second: Process?
    private(set) var secondEndpoint = ""

    /// Starts the servers; the pickers' caches go in `work`.
    func startServers(in work: URL) async throws {
        let database = try await servers.databaseSetup("postgres")
        let originals = try await servers.originalsSetup("s3", endpoint: nil, coldLoads: false)
        authArguments = database.authArguments
        pickerArguments = database.pickerArguments + originals.pickerArguments
    }

    /// The first picker's options: the shared ones and its cache.
    func firstPickerArguments(in work: URL) -> [String] {
        pickerArguments + ["--cache", work.appendingPathComponent("cache-1").path]
    }

    /// Starts the second picker beside the first (`directory`'s), with `extra` options; returns once it answers.
    func startSecond(beside directory: ServiceDirectory, in work: URL, extra: [String]) async throws -> ServiceDirectory {
        let data = work.appendingPathComponent("data-2")
        let copies = KeyDirectory(dataDirectory: data)
        try FileManager.default.createDirectory(at: copies.keyURL("x").deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        _ = try await directory.keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(60))
        for file in [directory.keys.keyURL(KeyDirectory.pickerService), directory.keys.publicKeyURL(KeyDirectory.pickerService),
                     directory.keys.publicKeyURL(KeyDirectory.authService), directory.keys.publicKeyURL(KeyDirectory.owner)] {
            try FileManager.default.copyItem(at: file, to: copies.keyURL("x").deletingLastPathComponent().appendingPathComponent(file.lastPathComponent))
        }
        secondEndpoint = "ipc://\(work.path)/picker-2.sock"
        let process = Process()
        process.executableURL = ServiceProcesses.binaryFolder.appendingPathComponent("lightbox-picker")
        process.arguments = ["--data", data.path, "--log-level", "warning", "--endpoint", secondEndpoint,
                             "--auth-endpoint", directory.authEndpoint, "--cache", work.appendingPathComponent("cache-2").path]
            + pickerArguments + extra
        process.environment = StarterProcess.environmentForChild()
        try process.run()
        second = process
        var atSecond = directory
        atSecond.pickerEndpoint = secondEndpoint
        // Ready once it answers the owner.
        let owner = try await atSecond.connectToPicker(as: try directory.ownerKeyPair(), timeout: .seconds(60))
        defer { owner.close() }
        _ = try await owner.request(.ping, Empty(), as: ServiceIdentity.self)
        return atSecond
    }

    func stop() {
        if let second, second.isRunning {
            second.terminate()
            second.waitUntilExit()
        }
        servers.stop()
    }
}

extension BenchOpsCommand {
    /// The concurrent runs against one picker (every client at the first) and against two (the
    /// clients spread over both), from the same rounds: medians and "2 pickers / 1 picker" ratios.
    static func printPickerRatios(_ samples: [String: [Sample]], operations: [String], clients: Int) {
        print("one picker vs two on one PostgreSQL + one S3: \(clients) clients (bare DEALERs), medians over rounds")
        print("operation                  1p req/s  2p req/s  req/s 2p/1p  1p p50 µs  2p p50 µs  p50 2p/1p")
        for name in operations {
            guard let one = samples["\(name)/\(clients)"], let two = samples["\(name)/\(clients)/spread"] else { continue }
            let (rateOne, rateTwo) = (BenchStatistics.median(one.map(\.perSecond)), BenchStatistics.median(two.map(\.perSecond)))
            let (p50One, p50Two) = (BenchStatistics.median(one.map { $0.p50.microseconds }), BenchStatistics.median(two.map { $0.p50.microseconds }))
            print(name.padding(toLength: 26, withPad: " ", startingAt: 0)
                  + String(format: " %8.0f %9.0f %12.2f %10.0f %10.0f %10.2f", rateOne, rateTwo, rateTwo / rateOne, p50One, p50Two, p50Two / p50One))
        }
    }
}

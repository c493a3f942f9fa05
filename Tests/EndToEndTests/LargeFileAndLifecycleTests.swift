import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization
import Testing

@Suite(.serialized) struct LargeFileAndLifecycleTests {
    /// 200 MB through a token: every process's peak memory grows by a few chunks, not by the file.
    @Test func a200MegabyteFileStreamsInBoundedMemory() async throws {
        let media = URL(fileURLWithPath: "/tmp/lbe-large-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: media) }
        let original = media.appendingPathComponent("large.mp4")
        try SyntheticMovie.write(to: original, mediaBytes: 200_000_000)

        let harness = try await ServiceHarness.start(importFolders: [media])
        defer { #expect(harness.stop() == (0, 0)) }
        _ = try await harness.registerApp("big")
        let policy = harness.root.appendingPathComponent("policy.json")
        try Data(#"{"action":"choose","strategy":"newest","count":1}"#.utf8).write(to: policy)
        async let auto = harness.cli(["user", "auto", "--policy", policy.path, "--max-picks", "1"])
        let pick = try await harness.cli(["pick", "--app", "big", "--json"])
        #expect(try await auto.status == 0)
        let results = try WireCoding.decode([PickerResult].self, from: Data(pick.output.utf8))
        let token = try #require(results.first?.itemProvider.token)

        let pickerBefore = harness.peakMemory(of: harness.picker)
        let authBefore = harness.peakMemory(of: harness.auth)
        let out = harness.root.appendingPathComponent("large-copy.mp4")
        let load = try await harness.cli(["load", token, "--app", "big", "--out", out.path, "--json"])
        #expect(load.status == 0, "\(load.errors)")
        struct Summary: Codable { var bytes: Int64; var sha256: String; var peakMemoryBytes: Int64 }
        let summary = try WireCoding.decode(Summary.self, from: Data(load.output.utf8))
        let expectedSize = (try FileManager.default.attributesOfItem(atPath: original.path)[.size] as! NSNumber).int64Value
        #expect(summary.bytes == expectedSize)
        #expect(summary.sha256 == (try sha256(original)))
        #expect(try sha256(out) == summary.sha256)

        let megabyte: Int64 = 1 << 20
        let pickerGrowth = harness.peakMemory(of: harness.picker) - pickerBefore
        let authGrowth = harness.peakMemory(of: harness.auth) - authBefore
        print("200 MB load: picker peak grew \(pickerGrowth / megabyte) MiB, auth \(authGrowth / megabyte) MiB, client peak \(summary.peakMemoryBytes / megabyte) MiB")
        // 8 chunks of 256 KiB are in flight at most; the limits leave room for allocator slack.
        #expect(pickerGrowth < 32 * megabyte)
        #expect(authGrowth < 16 * megabyte)
        #expect(summary.peakMemoryBytes < 96 * megabyte)
    }

    /// `lightbox run` on the harness's folder and endpoints, once all three services answer.
    func startLightboxRun(_ harness: ServiceHarness, errors: FileHandle = .nullDevice) async throws -> (run: Process, services: [Int32]) {
        let run = Process()
        run.executableURL = ServiceHarness.binaries.appendingPathComponent("lightbox")
        run.arguments = ["run", "--data", harness.directory.dataDirectory.path, "--auth-endpoint", harness.directory.authEndpoint,
                         "--picker-endpoint", harness.directory.pickerEndpoint, "--library", ServiceHarness.samples.path,
                         "--log-level", "warning", "--listen", "127.0.0.1:\(Int.random(in: 30_000...60_000))"]
        run.standardError = errors
        try run.run()
        try await harness.waitUntilReady()
        #expect(try await harness.owner().assets().count == 7)
        // lightbox-auth, lightbox-picker and lightbox-surface, which writes its login address.
        let login = SurfaceLogin(dataDirectory: harness.directory.dataDirectory).loginURLFile
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: login.path) { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try String(contentsOf: login, encoding: .utf8).hasPrefix("http://127.0.0.1:"))
        return (run, try childProcesses(of: run.processIdentifier))
    }

    /// Killed outright, `lightbox run` cannot stop its services: each notices that its starter has
    /// gone and shuts down by itself.
    @Test func servicesStopByThemselvesWhenLightboxRunIsKilled() async throws {
        let harness = try ServiceHarness()
        defer { harness.stop() }
        let (run, children) = try await startLightboxRun(harness)
        #expect(children.count == 3)
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        // They look once a second and then stop gracefully; a minute tells "never" apart.
        for _ in 0..<600 where children.contains(where: isAlive) { try await Task.sleep(for: .milliseconds(100)) }
        for child in children where isAlive(child) {
            Issue.record("service \(child) outlived the lightbox run that started it")
            // Killed here, or it would keep the test runner's output open and the run would never end.
            kill(child, SIGKILL)
        }
    }

    /// A service that dies is started again by `lightbox run` (as systemd's Restart=on-failure
    /// does), with a line naming the signal; the others keep running.
    @Test func lightboxRunStartsAServiceThatDiedAgain() async throws {
        let harness = try ServiceHarness()
        defer { harness.stop() }
        let errorsURL = harness.root.appendingPathComponent("run.err")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        let (run, children) = try await startLightboxRun(harness, errors: try FileHandle(forWritingTo: errorsURL))
        defer { if run.isRunning { kill(run.processIdentifier, SIGINT); run.waitUntilExit() } }
        let names = Dictionary(uniqueKeysWithValues: children.map { ($0, Self.name(of: $0)) })
        let picker = try #require(names.first { $0.value == "lightbox-picker" }?.key)
        kill(picker, SIGKILL)
        var restarted: Int32?
        for _ in 0..<200 where restarted == nil {
            try await Task.sleep(for: .milliseconds(100))
            restarted = try childProcesses(of: run.processIdentifier).first { !children.contains($0) && Self.name(of: $0) == "lightbox-picker" }
        }
        #expect(restarted != nil, "a new lightbox-picker was started")
        try await harness.waitUntilReady()
        #expect(try await harness.owner().assets().count == 7)
        #expect(run.isRunning)
        for (pid, name) in names where pid != picker { #expect(isAlive(pid), "\(name) kept running") }
        let errors = try String(contentsOf: errorsURL, encoding: .utf8)
        #expect(errors.contains("lightbox-picker was killed by signal 9"), "\(errors)")
        kill(run.processIdentifier, SIGINT)
        run.waitUntilExit()
        #expect(run.terminationStatus == 0)
    }

    static func name(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `pid` is a running process (not gone, and not a zombie awaiting its new parent).
    func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards) else { return false }
        return !["Z", "X"].contains(stat[afterName.upperBound...].prefix(1))
    }

    @Test func lightboxRunStartsAllThreeAndStopsThemOnInterrupt() async throws {
        let harness = try ServiceHarness()
        defer { harness.stop() }
        let (run, children) = try await startLightboxRun(harness)
        #expect(children.count == 3)

        kill(run.processIdentifier, SIGINT)
        run.waitUntilExit()
        #expect(run.terminationStatus == 0)
        for child in children { #expect(kill(child, 0) != 0, "service \(child) still running") }
    }

    @Test func importingTwiceKeepsIdentifiersAndReportsBrokenFiles() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let owner = try await harness.owner()
        let steps = Mutex<[ImportProgress]>([])
        let first = try await owner.importLibrary(at: ServiceHarness.samples.path) { step in steps.withLock { $0.append(step) } }
        #expect(first.imported.count == 7)
        // Progress comes for the first file and the last, a few times a second at most in between.
        let reported = steps.withLock { $0 }
        #expect(reported.first?.completed == 1)
        #expect(reported.last?.completed == 7 && reported.last?.total == 7)
        #expect(reported.map(\.completed) == reported.map(\.completed).sorted())
        let second = try await owner.importLibrary(at: ServiceHarness.samples.path)
        #expect(second.imported.isEmpty)
        #expect(Set(second.unchanged) == Set(first.imported))
        let broken = try await owner.importLibrary(at: ServiceHarness.repository.appendingPathComponent("Samples/malformed").path)
        #expect(broken.failed.count == 5)
        #expect(await errorCode { try await owner.importLibrary(at: "relative/folder") } == .badRequest)
        // Restarting keeps the catalog and its identifiers.
        #expect(try await harness.restartPicker() == 0)
        let afterRestart = try await harness.owner().assets().map(\.identifier)
        #expect(Set(afterRestart) == Set(first.imported))
    }

    /// Children of every thread of `pid` (Foundation spawns from whichever thread runs the task).
    func childProcesses(of pid: Int32) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").flatMap { task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }
}

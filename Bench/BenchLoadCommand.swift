import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import LightboxTransport
import Media

/// `lightbox bench load`: a large file streamed through an item-provider token against the same bytes
/// over a bare CURVE pair (or, with --local, delivered by descriptor against `cat`).
struct BenchLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "Stream a large file through an item-provider token, then the same bytes over a bare CURVE DEALER/ROUTER pair.",
        discussion: """
        Starts its own lightbox-auth and lightbox-picker on temporary endpoints and data, imports a \
        synthetic movie, picks it with a scripted owner and loads it; then runs the ZeroMQ Guide's \
        credit-based transfer with the same mechanism (CURVE), chunk size and credit, in alternating \
        rounds. Prints the median MB/s of each, their ratio, and the peak memory of every process.

        With --local, the same setup, then rounds that alternate a delivery by file descriptor \
        (provider.open, the picker's delivery socket, the descriptor read to its end) and \
        `cat FILE > /dev/null` of the same file, page cache warm for both; prints the median MB/s \
        of each and their ratio.
        """)

    @Option(help: "Size of the file in MiB.") var sizeMb = 256
    @Option(help: "Chunk size in KiB (both runs).") var chunkKb = 256
    @Option(help: "Chunks in flight (both runs).") var credit = LoadRequest.defaultCredit
    @Flag(help: "Time delivery by file descriptor (provider.open over ipc) against `cat FILE > /dev/null` of the same file, instead of the stream against bare ZeroMQ.")
    var local = false
    @Option(help: "Rounds of each, alternating (the medians are printed).") var rounds = 5

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-\(getpid())")
        let media = work.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = Int64(sizeMb) << 20
        let original = media.appendingPathComponent("bench.mp4")
        note("writing a \(sizeMb) MiB synthetic movie")
        try SyntheticMovie.write(to: original, mediaBytes: bytes)
        let fileSize = (try FileManager.default.attributesOfItem(atPath: original.path)[.size] as! NSNumber).int64Value

        let (directory, processes) = try await ServiceProcesses.forBench(in: work, importFolders: [media.path])
        defer { processes.stop() }

        // Register, pick with a scripted owner, then load through the token.
        let ownerKey = try directory.ownerKeyPair()
        let registry = AppRegistryClient(auth: try await directory.connectToAuth(as: ownerKey))
        let appKey = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL("bench"))
        try await registry.register(AppManifest(id: "bench", name: "Benchmark", publicKey: appKey.publicKey))
        let owner = OwnerSurface(picker: try await directory.connectToPicker(as: ownerKey, timeout: .seconds(60)))
        let app = try await directory.connectToPicker(as: appKey, timeout: .seconds(60))
        async let picked = PhotoPicker(connection: app).pick(PickerConfiguration(filter: .videos))
        let pending = try await owner.pendingPicks(waitingUpTo: .seconds(60))
        guard let pick = pending.first, let asset = try await owner.assets(for: pick.pick).first else {
            throw ValidationError("the benchmark pick never reached the owner")
        }
        try await owner.choose([asset.identifier], for: pick.pick)
        guard let item = try await picked.first else { throw ValidationError("the benchmark pick came back empty") }
        if local {
            return try await BenchLocalLoad(app: app, token: item.itemProvider.descriptor.token, rounds: max(rounds, 1),
                                            original: original).run()
        }

        // The baseline: the same bytes over a bare CURVE pair, same chunk size and credit.
        let rawServer = try BaselineServer("serve-raw", named: "raw", in: work, arguments: ["--file", original.path])
        let server = rawServer.process
        defer { server.terminate(); server.waitUntilExit() }
        try await Task.sleep(for: .milliseconds(300))

        var provider = ItemProvider(item.itemProvider.descriptor, connection: app)
        provider.delivery = .stream
        let mb = Double(fileSize) / 1e6
        var lightboxRates: [Double] = []
        var rawRates: [Double] = []
        var lightboxPeaks = (auth: Int64(0), picker: Int64(0), client: Int64(0))
        var rawPeaks = (server: Int64(0), client: Int64(0))
        let outputs = [work.appendingPathComponent("out-lightbox"), work.appendingPathComponent("out-raw")]
        for round in 1...max(rounds, 1) {
            // The last round's copies go before the clocks start: freeing them is the file system's time, not the transfer's.
            for output in outputs { try? FileManager.default.removeItem(at: output) }
            for pid in [processes.auth.processIdentifier, processes.picker.processIdentifier, getpid()] { ProcessMemory.resetPeak(of: pid) }
            let bar = ProgressBar("lightbox load \(round)")
            let lightboxStart = ContinuousClock.now
            let completion = try await provider.loadFileRepresentation(to: outputs[0],
                                                                       credit: credit, chunkSize: chunkKb << 10) {
                bar.update(bytes: $0.completed, of: $0.total)
            }
            lightboxRates.append(mb / (ContinuousClock.now - lightboxStart).seconds)
            lightboxPeaks.auth = max(lightboxPeaks.auth, ProcessMemory.peakResidentBytes(of: processes.auth.processIdentifier) ?? 0)
            lightboxPeaks.picker = max(lightboxPeaks.picker, ProcessMemory.peakResidentBytes(of: processes.picker.processIdentifier) ?? 0)
            lightboxPeaks.client = max(lightboxPeaks.client, ProcessMemory.peakResidentBytes())

            ProcessMemory.resetPeak(of: getpid())
            let rawBar = ProgressBar("bare zeromq \(round)")
            let rawStart = ContinuousClock.now
            let raw = try BareFileTransfer.fetch(endpoint: rawServer.endpoint, serverKey: rawServer.publicKey, keyPair: try CurveKeyPair.generate(),
                                                 chunkSize: chunkKb << 10, credit: credit, to: outputs[1]) {
                rawBar.update(bytes: $0, of: fileSize)
            }
            rawRates.append(mb / (ContinuousClock.now - rawStart).seconds)
            rawPeaks.server = max(rawPeaks.server, ProcessMemory.peakResidentBytes(of: server.processIdentifier) ?? 0)
            rawPeaks.client = max(rawPeaks.client, ProcessMemory.peakResidentBytes())
            guard completion.sha256 == raw.sha256, completion.bytes == fileSize else {
                throw ValidationError("the two runs delivered different bytes (\(completion.bytes) vs \(raw.bytes))")
            }
        }
        let lightboxRate = BenchStatistics.median(lightboxRates)
        let rawRate = BenchStatistics.median(rawRates)
        func mib(_ value: Int64) -> String { String(format: "%.1f MiB", Double(value) / 1_048_576) }
        print("bench load: \(sizeMb) MiB, chunk \(chunkKb) KiB, credit \(credit), CURVE on both, ipc transport, medians of \(lightboxRates.count) alternating rounds")
        print(String(format: "  lightbox token load : %8.1f MB/s", lightboxRate))
        print(String(format: "  bare DEALER/ROUTER  : %8.1f MB/s", rawRate))
        print(String(format: "  ratio lightbox/bare : %8.2f   (rounds: %@)", lightboxRate / rawRate,
                     zip(lightboxRates, rawRates).map { String(format: "%.2f", $0 / $1) }.joined(separator: " ")))
        print("  peak memory during the lightbox loads: picker \(mib(lightboxPeaks.picker)), auth \(mib(lightboxPeaks.auth)), client \(mib(lightboxPeaks.client))")
        print("  peak memory during the bare transfers: server \(mib(rawPeaks.server)), client \(mib(rawPeaks.client))")
    }
}

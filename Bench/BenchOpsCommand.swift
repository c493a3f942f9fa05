import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization

/// `lightbox bench ops`: the latency and throughput of the control plane's everyday operations,
/// each beside a bare CURVE echo measured in the same rounds.
struct BenchOpsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops",
        abstract: "p50/p99 latency and throughput of everyday operations against a bare CURVE DEALER/ROUTER echo.",
        discussion: """
        Starts its own lightbox-auth and lightbox-picker on temporary ipc endpoints, imports the sample \
        library, registers an app with full access and picks one photo for it. Then, in alternating \
        rounds, times service.ping, auth.status, library.fetchAssets (one identifier), library.query, \
        provider.describe, a cached image.request thumbnail and the owner's paged listing, each with 1 \
        and with --concurrency clients, and a bare CURVE echo with the same number of clients. The echo \
        and the operations are timed the same way: bare blocking libzmq DEALERs, one thread each, \
        sending ready-made request frames, so the ratio is what the service adds. Prints the median \
        over rounds of each p50, p99 and requests/s, each p50's ratio to the echo's, and the p50 of the \
        same operation through LightboxClient (its async DealerConnection), timed in the same rounds. \
        Then decisions per second: library.fetchAssets from --concurrency clients that each keep --window \
        requests in flight (pipelined, as an app fetching many things does), beside the echo driven the \
        same way, in alternating rounds. \
        Last, service.ping from one client for --load-seconds alone, then again while another app keeps \
        --renders full-size image.request renderings of a large photo running (each at a size of its own, \
        so none comes from the cache): the p50 and p99 of both. \
        With --pickers 2, both services run on a throwaway PostgreSQL with the originals in a throwaway \
        SeaweedFS (as `bench scale --database postgres --originals s3` starts them) and a second picker \
        serves the same library beside the first; every round then also times the operations with \
        --concurrency clients spread over both pickers, and a table gives "2 pickers / 1 picker" for \
        throughput and p50 (the 1-picker runs send every client to the first picker of the same setup).
        """)

    @Option(help: "Rounds; each runs every operation and the echo once.") var rounds = 5
    @Option(help: "Requests per client per operation per round.") var requests = 200
    @Option(help: "Clients of the concurrent runs (a single client always runs too).") var concurrency = 8
    @Option(help: "The library to import.") var library = "Samples/library"
    @Option(help: "Full-size renderings running at once while service.ping is timed under load.") var renders = 8
    @Option(help: "Seconds of service.ping alone, and again under the renderings.") var loadSeconds = 10.0
    @Option(help: "Requests each client keeps in flight in the pipelined runs (the service allows 64 per app; all clients are one app).")
    var window = 4
    @Option(help: "Only these operations, by the names the table prints (comma-separated, e.g. library.fetchAssets,library.query); all by default. For profiling one operation.")
    var only: String?
    @Option(help: "1, or 2: PostgreSQL and S3 (throwaway servers), a second picker, and the concurrent runs timed again spread over both.")
    var pickers = 1

    func validate() throws {
        guard (1...2).contains(pickers) else { throw ValidationError("--pickers is 1 or 2") }
    }

    /// One operation as the bench calls it: on one client's connections, once; and as a bare
    /// DEALER sends it (`bare`).
    struct Operation: Sendable {
        var name: String
        var bare: BareRequest
        var call: @Sendable (Clients) async throws -> Void
    }

    /// A request as ready-made header frames, for a bare DEALER with the given key.
    struct BareRequest: Sendable {
        var endpoint: String
        var serverKey: String
        var keyPair: CurveKeyPair
        /// `count` headers for client `client`, each with an id of its own.
        var headers: @Sendable (_ client: Int, _ count: Int) throws -> [Data]

        init<Body: Codable & Sendable>(_ op: OperationName, _ body: Body, endpoint: String, serverKey: String, keyPair: CurveKeyPair) {
            self.endpoint = endpoint
            self.serverKey = serverKey
            self.keyPair = keyPair
            headers = { client, count in
                try (0..<count).map { try WireCoding.encode(RequestEnvelope(id: "bench-\(client)-\($0)-\(UUID().uuidString.prefix(8))", op: op, body: body)) }
            }
        }
    }

    /// One bench client's connections: as the app to both services, and as the owner to the picker.
    struct Clients: Sendable {
        var auth: DealerConnection
        var picker: DealerConnection
        var owner: OwnerSurface
    }

    struct Sample {
        var p50: Duration
        var p99: Duration
        var perSecond: Double
    }

    func run() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-ops-\(getpid())")
        let data = work.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let directory = ServiceDirectory(dataDirectory: data, authEndpoint: "ipc://\(work.path)/auth.sock",
                                         pickerEndpoint: "ipc://\(work.path)/picker.sock")
        let large = try Self.writeLargePhoto(in: work.appendingPathComponent("large"))
        let twoPickers = pickers == 2 ? OpsPickers() : nil
        defer { twoPickers?.stop() }
        try await twoPickers?.startServers(in: work)
        let connectionsPerApp = ["--max-connections-per-app", "\(4 * concurrency + 16)"]
        let processes = try ServiceProcesses(data: data.path, authEndpoint: directory.authEndpoint, pickerEndpoint: directory.pickerEndpoint,
                                             importFolders: [URL(fileURLWithPath: library).standardizedFileURL.path, large.path],
                                             // Every client here is the same app, on connections of its own.
                                             logLevel: "warning", serviceArguments: connectionsPerApp,
                                             extraAuthArguments: twoPickers?.authArguments ?? [],
                                             extraPickerArguments: twoPickers?.firstPickerArguments(in: work) ?? [])
        processes.stopOnInterrupt()
        defer { processes.stop() }

        note("setting up: an app with full access, one picked photo")
        _ = try await directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        // The picker writes its key once its catalog is ready (on PostgreSQL, after its migrations).
        _ = try await directory.keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(60))
        let ownerKey = try directory.ownerKeyPair()
        let appKey = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL("bench"))
        try await AppRegistryClient(auth: try await directory.connectToAuth(as: ownerKey))
            .register(AppManifest(id: "bench", name: "Benchmark", publicKey: appKey.publicKey, usageReadWrite: "To measure"))
        try await OwnerSettings(auth: try await directory.connectToAuth(as: ownerKey)).setAccess(SetAccessRequest(app: "bench", readWrite: .full))
        let owner = OwnerSurface(picker: try await directory.connectToPicker(as: ownerKey, timeout: .seconds(60)))
        let app = try await directory.connectToPicker(as: appKey, timeout: .seconds(60))
        async let picked = PhotoPicker(connection: app).pick(PickerConfiguration(filter: .images))
        let pending = try await owner.pendingPicks(waitingUpTo: .seconds(60))
        guard let pick = pending.first, let asset = try await owner.assetPage(pick: pick.pick, limit: 1).assets.first else {
            throw ValidationError("the benchmark pick never reached the owner")
        }
        try await owner.choose([asset.identifier], for: pick.pick)
        guard let token = try await picked.first?.itemProvider.descriptor.token else { throw ValidationError("the benchmark pick came back empty") }

        let identifier = asset.identifier
        if twoPickers != nil { note("starting a second picker on the same database and bucket") }
        let secondPicker = try await twoPickers?.startSecond(beside: directory, in: work, extra: connectionsPerApp)
        let pickerKey = try await directory.keys.publicKey(KeyDirectory.pickerService, waitingUpTo: .seconds(30))
        let authKey = try await directory.keys.publicKey(KeyDirectory.authService, waitingUpTo: .seconds(30))
        func picker<Body: Codable & Sendable>(_ op: OperationName, _ body: Body, as keyPair: CurveKeyPair) -> BareRequest {
            BareRequest(op, body, endpoint: directory.pickerEndpoint, serverKey: pickerKey, keyPair: keyPair)
        }
        let status = StatusRequest(level: .readWrite)
        let fetch = FetchAssetsRequest(localIdentifiers: [identifier])
        let query = AssetQuery(limit: 20)
        let describe = TokenRequest(token: token)
        let thumbnail = ImageRequest(asset: identifier, targetWidth: 128, targetHeight: 128, deliveryMode: .highQualityFormat)
        let page = ListAssetsRequest(limit: 50)
        let everyOperation = [
            Operation(name: "service.ping", bare: picker(.ping, Empty(), as: appKey)) {
                _ = try await $0.picker.request(.ping, Empty(), as: ServiceIdentity.self)
            },
            Operation(name: "auth.status", bare: BareRequest(.authorizationStatus, status, endpoint: directory.authEndpoint, serverKey: authKey, keyPair: appKey)) {
                _ = try await $0.auth.request(.authorizationStatus, status, as: StatusResponse.self)
            },
            Operation(name: "library.fetchAssets", bare: picker(.fetchAssets, fetch, as: appKey)) {
                _ = try await $0.picker.request(.fetchAssets, fetch, as: FetchAssetsResponse.self)
            },
            Operation(name: "library.query", bare: picker(.queryAssets, query, as: appKey)) {
                _ = try await $0.picker.request(.queryAssets, query, as: FetchAssetsResponse.self)
            },
            Operation(name: "provider.describe", bare: picker(.describe, describe, as: appKey)) {
                _ = try await $0.picker.request(.describe, describe, as: ProviderDescription.self)
            },
            Operation(name: "image.request (cached)", bare: picker(.requestImage, thumbnail, as: appKey)) {
                for try await reply in $0.picker.send(.requestImage, thumbnail) where reply.status == .ok { break }
            },
            Operation(name: "owner.assets (page)", bare: picker(.listAssets, page, as: ownerKey)) {
                _ = try await $0.owner.assetPage(limit: 50)
            },
        ]
        let chosen = only.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        let operations = everyOperation.filter { chosen?.contains($0.name) ?? true }
        if let chosen, operations.count != chosen.count {
            throw ValidationError("--only names operations as the table prints them: \(everyOperation.map(\.name).joined(separator: ", "))")
        }

        let echo = try BaselineServer("serve-echo", named: "echo", in: work)
        processes.adopt(echo.process)
        // A ping-sized request header, so the echo carries what a small operation carries.
        let payload = try WireCoding.encode(RequestEnvelope(id: UUID().uuidString, op: .ping, body: Empty()))

        let widths = [1, concurrency]
        var clients: [Int: [Clients]] = [:]
        for width in widths {
            var list: [Clients] = []
            for _ in 0..<width {
                list.append(Clients(auth: try await directory.connectToAuth(as: appKey, timeout: .seconds(60)),
                                    picker: try await directory.connectToPicker(as: appKey, timeout: .seconds(60)),
                                    owner: OwnerSurface(picker: try await directory.connectToPicker(as: ownerKey, timeout: .seconds(60)))))
            }
            clients[width] = list
        }
        // With two pickers, the concurrent clients spread over both (the first, the second, the first…).
        var spread: [Clients] = []
        if let secondPicker {
            for index in 0..<concurrency {
                let at = index % 2 == 0 ? directory : secondPicker
                spread.append(Clients(auth: try await directory.connectToAuth(as: appKey, timeout: .seconds(60)),
                                      picker: try await at.connectToPicker(as: appKey, timeout: .seconds(60)),
                                      owner: OwnerSurface(picker: try await at.connectToPicker(as: ownerKey, timeout: .seconds(60)))))
            }
        }
        /// Where each of the spread clients sends `request`: the pickers in turn, auth as it is.
        func spreadEndpoints(_ request: BareRequest) -> [String]? {
            guard let secondPicker, request.endpoint == directory.pickerEndpoint else { return nil }
            return [directory.pickerEndpoint, secondPicker.pickerEndpoint]
        }
        // Warm up: connections handshaken, the thumbnail cached (on each picker), SQLite pages in memory.
        for operation in operations {
            try await operation.call(clients[1]![0])
            if spread.count > 1 { try await operation.call(spread[1]) }
        }

        var samples: [String: [Sample]] = [:]
        let bar = ProgressBar("bench ops")
        let steps = rounds * (widths.count * (operations.count + 1) + (spread.isEmpty ? 0 : operations.count))
        var done = 0
        for _ in 0..<rounds {
            for width in widths {
                // Alternate the echo and the operations inside every round, so drift hits both alike.
                samples["echo/\(width)", default: []].append(
                    try await Self.measureEcho(endpoint: echo.endpoint, serverKey: echo.publicKey, clients: width, requests: requests, payload: payload))
                done += 1
                bar.update(items: done, of: steps, current: "")
                for operation in operations {
                    samples["\(operation.name)/\(width)", default: []].append(
                        try await Self.measureBare(operation.bare, clients: width, requests: requests))
                    samples["\(operation.name)/\(width)/client", default: []].append(
                        try await Self.measure(operation, on: clients[width]!, requests: requests))
                    done += 1
                    bar.update(items: done, of: steps, current: "")
                }
            }
            // The same concurrent runs, the clients spread over both pickers.
            for operation in operations where !spread.isEmpty {
                samples["\(operation.name)/\(concurrency)/spread", default: []].append(
                    try await Self.measureBare(operation.bare, clients: concurrency, requests: requests, endpoints: spreadEndpoints(operation.bare)))
                done += 1
                bar.update(items: done, of: steps, current: "")
            }
        }

        print("bench ops: \(rounds) rounds × \(requests) requests per client, CURVE, ipc; medians over rounds")
        if twoPickers != nil { print("services on PostgreSQL, originals in S3 (throwaway servers); this table: every client at the first picker") }
        print("bare DEALERs for the echo and the operations alike; the last column is the same operation through LightboxClient")
        print("operation                  clients     p50 µs     p99 µs    req/s  p50/echo  client p50 µs")
        for width in widths {
            let echoP50 = BenchStatistics.median(samples["echo/\(width)"]!.map { $0.p50.microseconds })
            for name in ["echo"] + operations.map(\.name) {
                let list = samples["\(name)/\(width)"]!
                let p50 = BenchStatistics.median(list.map { $0.p50.microseconds })
                let p99 = BenchStatistics.median(list.map { $0.p99.microseconds })
                let rate = BenchStatistics.median(list.map(\.perSecond))
                let client = samples["\(name)/\(width)/client"].map { String(format: "%14.0f", BenchStatistics.median($0.map { $0.p50.microseconds })) } ?? ""
                print(name.padding(toLength: 26, withPad: " ", startingAt: 0)
                      + String(format: " %7d %10.0f %10.0f %8.0f %9.2f", width, p50, p99, rate, p50 / echoP50) + client)
            }
        }

        if !spread.isEmpty { Self.printPickerRatios(samples, operations: operations.map(\.name), clients: concurrency) }

        if let fetch = operations.first(where: { $0.name == "library.fetchAssets" }) {
            try await printDecisionRate(fetch.bare, echoEndpoint: echo.endpoint, echoKey: echo.publicKey, payload: payload)
        }

        note("timing service.ping alone and beside \(renders) full-size renderings")
        let photo = try await owner.assetPage(limit: ListAssetsRequest.maximumLimit).assets.first { $0.pixelWidth == Self.largeSize.width }
        guard let photo else { throw ValidationError("the large photo was not imported") }
        let loadKey = try CurveKeyPair.loadOrCreate(at: directory.keys.appKeyURL("benchload"))
        try await AppRegistryClient(auth: try await directory.connectToAuth(as: ownerKey))
            .register(AppManifest(id: "benchload", name: "Benchmark load", publicKey: loadKey.publicKey, usageReadWrite: "To load"))
        try await OwnerSettings(auth: try await directory.connectToAuth(as: ownerKey)).setAccess(SetAccessRequest(app: "benchload", readWrite: .full))
        var loaders: [DealerConnection] = []
        for _ in 0..<renders { loaders.append(try await directory.connectToPicker(as: loadKey, timeout: .seconds(60))) }
        let pinger = clients[1]![0]
        let ping = everyOperation[0]
        let alone = try await Self.pings(ping, on: pinger, for: .seconds(loadSeconds))
        let (loaded, rendered, stopped) = try await Self.pingsBesideRenders(ping, on: pinger, renders: loaders, of: photo.identifier,
                                                                            for: .seconds(loadSeconds))
        let stoppedWords = stopped == 0 ? "" : ", \(stopped) stopped by the picker's time limit"
        print(String(format: "service.ping, 1 client, alone: p50 %.0f µs, p99 %.0f µs; beside %d full-size renderings (%d×%d, another app, %d done",
                     alone.p50.microseconds, alone.p99.microseconds, renders, Self.largeSize.width, Self.largeSize.height, rendered)
            + stoppedWords + String(format: "): p50 %.0f µs, p99 %.0f µs", loaded.p50.microseconds, loaded.p99.microseconds))
        for connection in clients.values.flatMap({ $0 }) + spread {
            connection.auth.close()
            connection.picker.close()
        }
        for loader in loaders { loader.close() }
    }

    static let largeSize = (width: 4000, height: 3000)

    /// Every library call is a decision: how many library.fetchAssets calls a second the picker
    /// answers when its clients pipeline them, beside the echo pipelined alike, alternating rounds.
    func printDecisionRate(_ fetch: BareRequest, echoEndpoint: String, echoKey: String, payload: Data) async throws {
        let perClient = 2 * requests
        var echoRates: [Double] = []
        var fetchRates: [Double] = []
        for _ in 0..<rounds {
            echoRates.append(try await Self.pipelinedRate(clients: concurrency, requests: perClient) { _ in
                try BareEcho.pipelinedEchoes(endpoint: echoEndpoint, serverKey: echoKey, count: perClient, payload: payload, window: window)
            })
            let headers = try (0..<concurrency).map { try fetch.headers($0, perClient) }
            fetchRates.append(try await Self.pipelinedRate(clients: concurrency, requests: perClient) { client in
                try BareEcho.pipelinedRequests(endpoint: fetch.endpoint, serverKey: fetch.serverKey, keyPair: fetch.keyPair,
                                               headers: headers[client], window: window)
            })
        }
        let echo = BenchStatistics.median(echoRates)
        let decisions = BenchStatistics.median(fetchRates)
        print(String(format: "decisions/s: library.fetchAssets pipelined, %d clients × %d in flight: %.0f req/s (echo pipelined alike: %.0f req/s, ratio %.2f)",
                     concurrency, window, decisions, echo, echo / decisions))
    }

    /// Requests a second of `clients` bare DEALER threads, each running `run` (which sends `requests`).
    static func pipelinedRate(clients: Int, requests: Int, _ run: @escaping @Sendable (Int) throws -> Duration) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        Thread { continuation.resume(with: Result { _ = try run(client) }) }.start()
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(clients * requests) / (ContinuousClock.now - start).seconds
    }

    /// A 12-megapixel JPEG (a camera's size) in `folder`, dated long ago so that it sorts last in the library.
    static func writeLargePhoto(in folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let png = folder.deletingLastPathComponent().appendingPathComponent("large.png")
        try TinyPNG.make(width: largeSize.width, height: largeSize.height) { row, column in
            let noise = UInt8(truncatingIfNeeded: (row &* 7919 ^ column &* 104_729) >> 3)
            return (UInt8(truncatingIfNeeded: row / 12) &+ noise, UInt8(truncatingIfNeeded: column / 16), noise)
        }.write(to: png)
        defer { try? FileManager.default.removeItem(at: png) }
        let jpeg = folder.appendingPathComponent("large.jpg")
        try ImageRenderer.compatibleJPEG(of: png, to: jpeg)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 978_307_200)], ofItemAtPath: jpeg.path)
        return folder
    }

    /// `operation` one call after another on one client for `duration`.
    static func pings(_ operation: Operation, on client: Clients, for duration: Duration) async throws -> Sample {
        let start = ContinuousClock.now
        var times: [Duration] = []
        while ContinuousClock.now - start < duration {
            let begin = ContinuousClock.now
            try await operation.call(client)
            times.append(ContinuousClock.now - begin)
        }
        return sample(times, wall: ContinuousClock.now - start)
    }

    /// `pings` while each of `renders` keeps one full-size rendering of `asset` running, each at a
    /// size not asked before (so the picker renders every one); also how many renderings finished,
    /// and how many the picker stopped at its time limit.
    static func pingsBesideRenders(_ operation: Operation, on client: Clients, renders: [DealerConnection], of asset: String,
                                   for duration: Duration) async throws -> (Sample, Int, Int) {
        final class Load: Sendable {
            let stop = Mutex(false)
            let finished = Mutex(0)
            let stopped = Mutex(0)
        }
        let load = Load()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, connection) in renders.enumerated() {
                group.addTask {
                    var step = 0
                    while !load.stop.withLock({ $0 }) {
                        // One pixel narrower each time: a new size, rendered anew, about the original's.
                        let width = largeSize.width - index - renders.count * step
                        let request = ImageRequest(asset: asset, targetWidth: width, targetHeight: largeSize.height, contentMode: .fit,
                                                   deliveryMode: .highQualityFormat)
                        do {
                            for try await reply in connection.send(.requestImage, request) where reply.status == .ok { break }
                            load.finished.withLock { $0 += 1 }
                        } catch let error as LightboxError where error.code == .timeout {
                            // The picker stopped a rendering past its time limit (a slow or busy
                            // machine): it was load all the same; the next one is asked for.
                            load.stopped.withLock { $0 += 1 }
                        }
                        step += 1
                    }
                }
            }
            // Let every rendering start before timing.
            try await Task.sleep(for: .milliseconds(500))
            let sample = try await pings(operation, on: client, for: duration)
            let done = load.finished.withLock { $0 }
            load.stop.withLock { $0 = true }
            try await group.waitForAll()
            return (sample, done, load.stopped.withLock { $0 })
        }
    }

    /// Each client runs `requests` calls one after another; all clients at once.
    static func measure(_ operation: Operation, on clients: [Clients], requests: Int) async throws -> Sample {
        let start = ContinuousClock.now
        let times = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for client in clients {
                group.addTask {
                    var times: [Duration] = []
                    for _ in 0..<requests {
                        let begin = ContinuousClock.now
                        try await operation.call(client)
                        times.append(ContinuousClock.now - begin)
                    }
                    return times
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return sample(times, wall: ContinuousClock.now - start)
    }

    /// A service's operation from bare blocking DEALERs, each on a thread of its own, as the echo is
    /// timed; with `endpoints`, client `n` sends to the `n`th of them in turn instead of `request.endpoint`.
    static func measureBare(_ request: BareRequest, clients: Int, requests: Int, endpoints: [String]? = nil) async throws -> Sample {
        let headers = try (0..<clients).map { try request.headers($0, requests) }
        let start = ContinuousClock.now
        let times = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for client in 0..<clients {
                let frames = headers[client]
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        Thread {
                            continuation.resume(with: Result {
                                try BareEcho.requests(endpoint: endpoints.map { $0[client % $0.count] } ?? request.endpoint,
                                                      serverKey: request.serverKey, keyPair: request.keyPair, headers: frames)
                            })
                        }.start()
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return sample(times, wall: ContinuousClock.now - start)
    }

    /// The echo's clients each on a thread of their own, as bare blocking DEALERs.
    static func measureEcho(endpoint: String, serverKey: String, clients: Int, requests: Int, payload: Data) async throws -> Sample {
        let start = ContinuousClock.now
        let times = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<clients {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        Thread {
                            continuation.resume(with: Result {
                                try BareEcho.roundTrips(endpoint: endpoint, serverKey: serverKey, count: requests, payload: payload)
                            })
                        }.start()
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return sample(times, wall: ContinuousClock.now - start)
    }

    static func sample(_ times: [Duration], wall: Duration) -> Sample {
        let sorted = times.sorted()
        return Sample(p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))],
                      perSecond: Double(times.count) / wall.seconds)
    }
}

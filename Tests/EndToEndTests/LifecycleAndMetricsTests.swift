import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// The executables as systemd and Prometheus see them: READY=1 once bound, `/metrics` with
/// per-operation counts, latencies, error codes, bytes streamed and pending picks, logs with
/// request metadata, and a graceful stop on SIGTERM that answers what was waiting.
@Suite("Service lifecycle and metrics", .serialized)
struct LifecycleAndMetricsTests {
    @Test("/metrics on both services counts operations, outcomes, bytes streamed, pending picks and memory")
    func metricsAreScraped() async throws {
        let authPort = try FreePort.make(), pickerPort = try FreePort.make()
        let harness = try await ServiceHarness.start(
            pickerOptions: ["--metrics", "127.0.0.1:\(pickerPort)"],
            authOptions: ["--metrics", "127.0.0.1:\(authPort)", "--log-level", "debug"])
        defer { harness.stop() }
        let app = try await harness.registerApp("metrics-app")
        let library = try await harness.library(for: "metrics-app")
        _ = try await library.authorizationStatus(for: .readWrite)
        _ = try await app.request(.ping, Empty(), as: ServiceIdentity.self)
        #expect(await errorCode { try await app.request(OperationName(rawValue: "no.such.op"), Empty(), as: Empty.self) } == .unknownOp)

        // A pick waits for the owner: the gauge shows it; then one file is streamed.
        let owner = try await harness.owner()
        async let items = PhotoPicker(connection: app).pick(PickerConfiguration(), timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        let waiting = try await Scrape.metrics(port: pickerPort)
        #expect(waiting.value("lightbox_pending_picks") == 1)
        let asset = try #require(try await owner.assets(for: pick.pick).first { $0.fileName == "harbour.jpg" })
        try await owner.choose([asset.identifier], for: pick.pick)
        var provider = try #require(try await items.first).itemProvider
        provider.delivery = .stream
        let data = try await provider.loadDataRepresentation { _ in }

        let picker = try await Scrape.metrics(port: pickerPort)
        #expect(picker.value("lightbox_requests_total", ["service": "lightbox-picker", "op": "service.ping", "outcome": "ok"]) ?? 0 >= 1)
        #expect(picker.value("lightbox_requests_total", ["service": "lightbox-picker", "op": "no.such.op", "outcome": "unknownOp"]) == 1)
        #expect(picker.value("lightbox_request_duration_seconds_count", ["service": "lightbox-picker", "op": "picker.pick"]) ?? 0 >= 1)
        #expect(picker.value("lightbox_stream_bytes_total") ?? 0 >= Double(data.count))
        #expect(picker.value("lightbox_pending_picks") == 0)
        #expect(picker.value("lightbox_process_resident_bytes") ?? 0 > 1_000_000)

        let auth = try await Scrape.metrics(port: authPort)
        #expect(auth.value("lightbox_requests_total", ["service": "lightbox-auth", "op": "auth.status", "outcome": "ok"]) ?? 0 >= 1)
        #expect(auth.value("lightbox_pending_prompts") ?? 0 == 0)
        #expect(auth.text.contains("lightbox_request_duration_seconds_bucket{"))

        // The request-scoped logger: id, operation and caller on the access line.
        let line = try #require(harness.log("lightbox-auth").split(separator: "\n").first { $0.contains("op=auth.status") && $0.contains("handled") })
        #expect(line.contains("principal=app:metrics-app"))
        #expect(line.contains("request="))
        #expect(line.contains("outcome=ok"))
    }

    @Test("READY=1 reaches NOTIFY_SOCKET once the endpoint answers; SIGTERM cancels a waiting pick and exits 0")
    func readinessAndGracefulStop() async throws {
        let notify = try NotifySocket()
        let harness = try await ServiceHarness.start(environment: ["NOTIFY_SOCKET": notify.path])
        defer { harness.stop() }
        // Both services report; the picker only after its endpoint is bound (the harness has already pinged it).
        let messages = notify.receive(until: { $0.filter { $0.contains("READY=1") }.count >= 2 }, within: .seconds(10))
        #expect(messages.filter { $0.contains("READY=1") }.count == 2)
        #expect(messages.contains { $0.contains("STATUS=serving on \(harness.directory.pickerEndpoint)") })

        let app = try await harness.registerApp("stopping-app")
        let owner = try await harness.owner()
        let waitingPick = Task { try await PhotoPicker(connection: app).pick(PickerConfiguration(), timeout: .seconds(30)) }
        _ = try await harness.pendingPick(owner)
        harness.picker.terminate()
        let outcome = await waitingPick.result
        #expect(throws: LightboxError.self) { try outcome.get() }
        if case .failure(let error as LightboxError) = outcome { #expect(error.code == .cancelled) }
        harness.picker.waitUntilExit()
        #expect(harness.picker.terminationStatus == 0)
        let stopping = notify.receive(until: { $0.contains { $0.contains("STOPPING=1") } }, within: .seconds(5))
        #expect(stopping.contains { $0.contains("STOPPING=1") })
    }
}

/// A free TCP port on loopback, found by binding port 0.
enum FreePort {
    static func make() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else { throw LightboxError(.internal, "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// systemd's side of the notify protocol: a datagram socket the service writes KEY=VALUE lines to.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32

    init() throws {
        path = "/tmp/lbn-\(UUID().uuidString.prefix(8)).sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw LightboxError(.internal, "could not bind \(path)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    private var received: [String] = []

    /// Everything received so far (this call included), once `done` holds or the time is up.
    func receive(until done: ([String]) -> Bool, within limit: Duration) -> [String] {
        let deadline = ContinuousClock.now + limit
        while !done(received), ContinuousClock.now < deadline {
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 { received.append(String(decoding: buffer[..<count], as: UTF8.self)) }
        }
        return received
    }
}

/// One scrape of a `/metrics` page, with a lookup by name and labels.
struct Scrape {
    let text: String

    static func metrics(port: Int) async throws -> Scrape {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain") == true)
        return Scrape(text: String(decoding: data, as: UTF8.self))
    }

    /// The value of the sample named `name` whose labels include all of `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let metric = series.prefix { $0 != "{" }
            guard metric == name else { continue }
            let hasLabels = labels.allSatisfy { series.contains("\($0.key)=\"\($0.value)\"") }
            if hasLabels { return Double(line[line.index(after: space)...]) }
        }
        return nil
    }
}

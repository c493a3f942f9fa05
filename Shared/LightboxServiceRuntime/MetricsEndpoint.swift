import Foundation
import Hummingbird
import LightboxTransport
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `--metrics HOST:PORT`: serves `GET /metrics` in Prometheus's text format from the process's
/// collector registry (swift-metrics bootstrapped with swift-prometheus). Loopback by default: the
/// numbers name apps and operations, so they are the owner's.
public struct MetricsEndpoint: Service {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    /// Parses `HOST:PORT` (`127.0.0.1:9101`, `[::1]:9101`).
    public init(listen: String, registry: PrometheusCollectorRegistry, logger: Logger) throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            throw MetricsEndpointError(message: "--metrics takes HOST:PORT, like 127.0.0.1:9101; \"\(listen)\" is not that.")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw MetricsEndpointError(message: "--metrics needs a host before the port, like 127.0.0.1:\(port).") }
        self.host = host
        self.port = port
        self.registry = registry
        self.logger = logger
    }

    public func run() async throws {
        let router = Router()
        let registry = self.registry
        let memory = Gauge(label: "lightbox_process_resident_bytes")
        let peak = Gauge(label: "lightbox_process_peak_resident_bytes")
        router.get("metrics") { _, _ -> Response in
            // Memory is read when asked, so every scrape sees the current figure.
            memory.record(ProcessMemory.residentBytes(of: getpid()) ?? 0)
            peak.record(ProcessMemory.peakResidentBytes())
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let application = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil), logger: logger)
        try await application.run()
    }
}

public struct MetricsEndpointError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Process-wide metrics set-up for a service executable.
public enum ServiceMetrics {
    /// Bootstraps swift-metrics with a Prometheus registry (once per process) and returns it.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Request latencies are well under a second; the default buckets start at 5 ms.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }
}

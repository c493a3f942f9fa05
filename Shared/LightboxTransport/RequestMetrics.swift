import Dispatch
import LightboxProtocol
import Metrics

/// Metrics at the request boundary, through swift-metrics (the executables bootstrap Prometheus;
/// without a bootstrap these are no-ops). Names follow Prometheus conventions.
public enum RequestMetrics {
    /// One handled request: counted by service, operation and outcome (`ok` or the error code), timed by operation.
    static func record(service: String, op: OperationName, outcome: String, since start: DispatchTime) {
        Counter(label: "lightbox_requests_total", dimensions: [("service", service), ("op", op.rawValue), ("outcome", outcome)]).increment()
        Timer(label: "lightbox_request_duration_seconds", dimensions: [("service", service), ("op", op.rawValue)])
            .recordInterval(since: start)
    }

    /// A request refused before any handler ran (limits, malformed frames, shutting down).
    static func refused(code: ErrorCode) {
        Counter(label: "lightbox_requests_refused_total", dimensions: [("code", code.rawValue)]).increment()
    }

    /// Bytes of file content sent in credit-based streams.
    static func streamed(bytes: Int) {
        Counter(label: "lightbox_stream_bytes_total").increment(by: bytes)
    }

    /// A stream that had data to send but no credit left: the client is the bottleneck.
    static func creditStall() {
        Counter(label: "lightbox_stream_credit_stalls_total").increment()
    }
}

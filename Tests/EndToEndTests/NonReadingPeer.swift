import CZeroMQ
import Foundation
@testable import LightboxTransport
import LightboxProtocol
import Synchronization

/// A hostile client: a CURVE DEALER with RCVHWM 1 that sends requests as fast as the service takes
/// them and never reads a reply, on its own thread, until stopped.
final class NonReadingPeer: Sendable {
    let sent = Mutex(0)
    private let stopped = Flag()
    private let finished = Flag()

    init(endpoint: String, serverKey: String, keyPair: CurveKeyPair, count: Int, message: @escaping @Sendable (Int) -> [Data]) {
        Thread.detachNewThread { [self] in
            defer { finished.set() }
            guard let socket = try? Socket(type: ZMQ_DEALER) else { return }
            try? socket.set(ZMQ_RCVHWM, 1)
            try? socket.makeCurveClient(keyPair, serverKey: serverKey)
            try? socket.connect(endpoint)
            var index = 0
            while index < count, !stopped.isSet {
                if (try? socket.send(message(index))) == true {
                    index += 1
                    sent.withLock { $0 = index }
                } else {
                    usleep(1000)
                }
            }
            while !stopped.isSet { usleep(10_000) }
            socket.close()
        }
    }

    /// One request as a header frame.
    static func request(_ op: OperationName, id: String) -> [Data] {
        [try! WireCoding.encode(RequestEnvelope(id: id, op: op, body: Empty()))]
    }

    func stop() {
        stopped.set()
        while !finished.isSet { usleep(1000) }
    }
}

/// p50 and p99 of a list of durations, in milliseconds, for printing.
func percentiles(_ durations: [Duration]) -> (p50: Double, p99: Double) {
    let sorted = durations.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }.sorted()
    guard !sorted.isEmpty else { return (0, 0) }
    func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))] }
    return (at(0.5), at(0.99))
}

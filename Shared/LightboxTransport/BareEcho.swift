import CZeroMQ
import Foundation

/// A bare CURVE ROUTER that sends every message straight back, and a bare DEALER that times round
/// trips through it: no Lightbox protocol, no handlers, no ZAP. `lightbox bench ops` measures every
/// operation against it, so the ratio shows what Lightbox adds on top of ZeroMQ and CURVE.
public enum BareEcho {
    /// Echoes to any number of clients until the process ends.
    public static func serve(endpoint: String, keyPair: CurveKeyPair) throws -> Never {
        let socket = try Socket.makeBareCurveRouter(endpoint: endpoint, keyPair: keyPair)
        while true {
            var items = [zmq_pollitem_t.socket(socket, events: ZMQ_POLLIN)]
            try poll(&items, timeoutMilliseconds: 1000)
            while let message = try socket.receive() {
                _ = try? socket.send(message.frames)
            }
        }
    }

    /// Sends `count` messages of `payload` one after another, each waiting for its echo, on the
    /// calling thread; returns each round trip's time.
    public static func roundTrips(endpoint: String, serverKey: String, count: Int, payload: Data) throws -> [Duration] {
        let socket = try Socket(type: ZMQ_DEALER)
        try socket.makeCurveClient(try CurveKeyPair.generate(), serverKey: serverKey)
        try socket.connect(endpoint)
        var times: [Duration] = []
        times.reserveCapacity(count)
        let clock = ContinuousClock()
        for _ in 0..<count {
            let start = clock.now
            guard try socket.send([payload]) else { throw TransportError(.socket, "the echo server's pipe is full") }
            while true {
                var items = [zmq_pollitem_t.socket(socket, events: ZMQ_POLLIN)]
                try poll(&items, timeoutMilliseconds: 10_000)
                guard items[0].isReadable else { throw TransportError(.socket, "the echo server did not answer in 10 s") }
                if try socket.receive() != nil { break }
            }
            times.append(clock.now - start)
        }
        return times
    }
}

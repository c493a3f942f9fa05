import Foundation
import LightboxTransport

/// A bare CURVE ROUTER that sends every message straight back, and a bare DEALER that times round
/// trips through it: no Lightbox protocol, no handlers, no ZAP. `lightbox bench ops` measures every
/// operation against it, so the ratio shows what Lightbox adds on top of ZeroMQ and CURVE.
enum BareEcho {
    /// Echoes to any number of clients until the process ends, or the command that started it
    /// (`StarterProcess`) has gone.
    static func serve(endpoint: String, keyPair: CurveKeyPair) throws -> Never {
        let socket = try BareSocket.curveRouter(endpoint: endpoint, keyPair: keyPair)
        let starter = StarterProcess.fromEnvironment()
        while true {
            if starter?.hasGone == true { exit(0) }
            _ = try socket.waitForMessage(milliseconds: 1000)
            while let frames = try socket.receive() {
                _ = try? socket.send(frames)
            }
        }
    }

    /// Sends `count` messages of `payload` one after another, each waiting for its echo, on the
    /// calling thread; returns each round trip's time.
    static func roundTrips(endpoint: String, serverKey: String, count: Int, payload: Data) throws -> [Duration] {
        try roundTrips(endpoint: endpoint, serverKey: serverKey, keyPair: try CurveKeyPair.generate(),
                       messages: Array(repeating: payload, count: count)) { _ in true }
    }

    /// The same bare DEALER sending Lightbox requests (each a ready-made header frame) to a service
    /// as `keyPair`, each waiting for its final reply: the service's own cost, with no client library
    /// between, measured exactly as the echo is. An `error` reply throws.
    static func requests(endpoint: String, serverKey: String, keyPair: CurveKeyPair, headers: [Data]) throws -> [Duration] {
        try roundTrips(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair, messages: headers, isFinal: isFinalReply)
    }

    /// `count` messages of `payload` with up to `window` of them awaiting their echo at once;
    /// returns how long they all took.
    static func pipelinedEchoes(endpoint: String, serverKey: String, count: Int, payload: Data, window: Int) throws -> Duration {
        try pipelined(endpoint: endpoint, serverKey: serverKey, keyPair: try CurveKeyPair.generate(),
                      messages: Array(repeating: payload, count: count), window: window) { _ in true }
    }

    /// Lightbox requests with up to `window` of them awaiting their final reply at once, as an app
    /// that fetches many things pipelines them; returns how long they all took. An `error` reply
    /// (a `busy` one too: the window must fit the service's per-app allowance) throws.
    static func pipelinedRequests(endpoint: String, serverKey: String, keyPair: CurveKeyPair, headers: [Data], window: Int) throws -> Duration {
        try pipelined(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair, messages: headers, window: window, isFinal: isFinalReply)
    }

    private static let okStatus = Data(#""status":"ok""#.utf8)
    private static let errorStatus = Data(#""status":"error""#.utf8)

    /// Whether a reply header ends its request; an `error` reply throws.
    private static func isFinalReply(_ header: Data) throws -> Bool {
        if header.firstRange(of: okStatus) != nil { return true }
        if header.firstRange(of: errorStatus) != nil {
            throw TransportError(.socket, "the service refused a bench request: \(String(decoding: header, as: UTF8.self))")
        }
        return false
    }

    private static func pipelined(endpoint: String, serverKey: String, keyPair: CurveKeyPair, messages: [Data], window: Int,
                                  isFinal: (Data) throws -> Bool) throws -> Duration {
        let socket = try BareSocket.curveDealer(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair)
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        var finished = 0
        func sendNext() throws {
            try send(messages[sent], on: socket)
            sent += 1
        }
        while sent < min(window, messages.count) { try sendNext() }
        while finished < messages.count {
            try awaitReply(on: socket)
            while let reply = try socket.receive() {
                guard try isFinal(reply.first ?? Data()) else { continue }
                finished += 1
                if sent < messages.count { try sendNext() }
            }
        }
        return clock.now - start
    }

    private static func roundTrips(endpoint: String, serverKey: String, keyPair: CurveKeyPair, messages: [Data],
                                   isFinal: (Data) throws -> Bool) throws -> [Duration] {
        let socket = try BareSocket.curveDealer(endpoint: endpoint, serverKey: serverKey, keyPair: keyPair)
        var times: [Duration] = []
        times.reserveCapacity(messages.count)
        let clock = ContinuousClock()
        for message in messages {
            let start = clock.now
            try send(message, on: socket)
            waiting: while true {
                try awaitReply(on: socket)
                while let reply = try socket.receive() {
                    if try isFinal(reply.first ?? Data()) { break waiting }
                }
            }
            times.append(clock.now - start)
        }
        return times
    }

    private static func send(_ message: Data, on socket: BareSocket) throws {
        guard try socket.send([message]) else { throw TransportError(.socket, "the server's pipe is full") }
    }

    /// Waits until a reply can be read, for at most 10 s.
    private static func awaitReply(on socket: BareSocket) throws {
        guard try socket.waitForMessage(milliseconds: 10_000) else { throw TransportError(.socket, "the server did not answer in 10 s") }
    }
}

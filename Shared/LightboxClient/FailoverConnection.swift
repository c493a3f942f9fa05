import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Synchronization

/// "The picker" when several pickers serve one library: the ZeroMQ Guide's Freelance pattern
/// (brokerless reliability) over one `DealerConnection` per endpoint. Requests go to one picker at
/// a time, the current one. While a request waits, its picker is watched: a lost connection, or
/// `failoverTime` of silence followed by a `service.ping` unanswered for as long, marks the picker
/// dead for `deadTime` (its connection is closed, so nothing queued for it is sent later) and the
/// next picker in the list becomes current. A request is then sent again at the next picker only
/// if it is a read (`PickerEndpoints.repeatableOperations`) and none of its replies reached the app
/// yet; anything else ends with `timeout` and a sentence saying it was not sent again. Each request
/// tries every picker at most once and gives up after `deadline`: when none answers, `timeout`
/// names the pickers tried.
public final class FailoverConnection: PickerConnection {
    public struct Configuration: Sendable {
        /// The pickers, in the order they are tried; all hold the service key `serverKey`.
        public var endpoints: [String]
        public var serverKey: String
        public var keyPair: CurveKeyPair
        /// The longest wait for a request's next reply, as on a `DealerConnection`.
        public var defaultTimeout: Duration = .seconds(10)
        /// The launch the connections belong to (`DealerConnection.Configuration.launch`).
        public var launch: String?
        /// Silence on a request after which its picker is pinged; a ping unanswered as long marks
        /// the picker dead.
        public var failoverTime: Duration = .seconds(2)
        /// How long a dead picker is passed over (unless every picker is dead).
        public var deadTime: Duration = .seconds(30)
        /// The longest one request spends moving from picker to picker.
        public var deadline: Duration = .seconds(120)

        public init(endpoints: [String], serverKey: String, keyPair: CurveKeyPair) {
            self.endpoints = endpoints
            self.serverKey = serverKey
            self.keyPair = keyPair
        }
    }

    private struct Member {
        /// Made on first use, closed and forgotten when the picker is found dead.
        var connection: DealerConnection?
        var deadUntil: ContinuousClock.Instant?
        /// The connection's lost connections when it last answered: more now means the picker
        /// went away since, so a request's watchdog pings it at once instead of after a silence.
        var disconnectionsWhenHeard = 0
    }

    private struct Members {
        var all: [Member]
        var current = 0
        var isClosed = false
    }

    public let configuration: Configuration
    private let logger: Logger
    private let members: Mutex<Members>
    private let pickersLost = Atomic<Int>(0)

    public init(_ configuration: Configuration, logger: Logger = Logger(label: "lightbox.client")) throws {
        guard !configuration.endpoints.isEmpty else {
            throw LightboxError(.badRequest, "No picker endpoint was given; pass one or more, separated by commas.")
        }
        self.configuration = configuration
        self.logger = logger
        members = Mutex(Members(all: Array(repeating: Member(), count: configuration.endpoints.count)))
    }

    deinit { close() }

    public var endpoint: String { configuration.endpoints[members.withLock { $0.current }] }

    public var spareEndpoints: Int { configuration.endpoints.count - 1 }

    /// How many times a picker was found dead (each ends the requests it carried or moves them on).
    public var disconnections: Int { pickersLost.load(ordering: .relaxed) }

    /// The pickers marked dead now.
    public var deadEndpoints: [String] {
        let now = ContinuousClock.now
        return members.withLock { state in
            state.all.indices.filter { state.all[$0].deadUntil.map { $0 > now } ?? false }.map { configuration.endpoints[$0] }
        }
    }

    public func close() {
        let open = members.withLock { state in
            state.isClosed = true
            defer { for index in state.all.indices { state.all[index].connection = nil } }
            return state.all.compactMap(\.connection)
        }
        for connection in open { connection.close() }
    }

    public func post<Body: Codable & Sendable>(_ op: OperationName, _ body: Body) {
        members.withLock { $0.all[$0.current].connection }?.post(op, body)
    }

    public func send<Body: Codable & Sendable>(
        _ op: OperationName, _ body: Body, attachments: [Data], timeout: Duration?, id: String
    ) -> AsyncThrowingStream<IncomingReply, Error> {
        let (stream, continuation) = AsyncThrowingStream<IncomingReply, Error>.makeStream()
        let first: Attempt
        do {
            // The first try is sent before this returns, so a cancel or credit that follows comes after it.
            guard let chosen = try choose(excluding: []) else { throw LightboxError(.cancelled, "The picker connection was closed.") }
            first = chosen
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let resend: @Sendable (DealerConnection) -> AsyncThrowingStream<IncomingReply, Error> = {
            $0.send(op, body, attachments: attachments, timeout: timeout, id: id)
        }
        let replies = resend(first.connection)
        // One relay per request, ended with it: cancelling the app's stream cancels the relay.
        let relay = Task { await self.relay(op, first: first, replies: replies, resend: resend, to: continuation) }
        continuation.onTermination = { _ in relay.cancel() }
        return stream
    }

    // MARK: - Choosing pickers

    private struct Attempt: Sendable {
        var index: Int
        var connection: DealerConnection
    }

    /// The picker a request tries next: the current one while it lives, else the next live one in
    /// list order, else (every picker dead) the next one this request has not tried; nil when it
    /// tried them all.
    private func choose(excluding tried: Set<Int>) throws -> Attempt? {
        let now = ContinuousClock.now
        return try members.withLock { state -> Attempt? in
            guard !state.isClosed else { return nil }
            let count = state.all.count
            let untried = (0..<count).map { (state.current + $0) % count }.filter { !tried.contains($0) }
            let live = untried.first { state.all[$0].deadUntil.map { $0 <= now } ?? true }
            guard let index = live ?? untried.first else { return nil }
            state.current = index
            if let connection = state.all[index].connection { return Attempt(index: index, connection: connection) }
            var dealer = DealerConnection.Configuration(endpoint: configuration.endpoints[index], serverKey: configuration.serverKey,
                                                        keyPair: configuration.keyPair)
            dealer.defaultTimeout = configuration.defaultTimeout
            dealer.launch = configuration.launch
            let connection = try DealerConnection(dealer, logger: logger)
            state.all[index].connection = connection
            return Attempt(index: index, connection: connection)
        }
    }

    /// Marks the picker of `attempt` dead, unless another request already did (and a new
    /// connection replaced the one that failed), and moves on to the next.
    private func markDead(_ attempt: Attempt) {
        let deadTime = configuration.deadTime
        let failed = members.withLock { state -> DealerConnection? in
            guard state.all[attempt.index].connection === attempt.connection else { return nil }
            state.all[attempt.index] = Member(connection: nil, deadUntil: .now + deadTime)
            if state.current == attempt.index { state.current = (attempt.index + 1) % state.all.count }
            return attempt.connection
        }
        guard let failed else { return }
        pickersLost.add(1, ordering: .relaxed)
        logger.warning("picker stopped answering; trying the next", metadata: ["endpoint": "\(failed.endpoint)"])
        failed.close()
    }

    private func markAlive(_ attempt: Attempt) {
        members.withLock { state in
            guard state.all[attempt.index].connection === attempt.connection else { return }
            state.all[attempt.index].deadUntil = nil
            state.all[attempt.index].disconnectionsWhenHeard = attempt.connection.disconnections
        }
    }

    // MARK: - Following a request

    private func relay(
        _ op: OperationName, first: Attempt, replies: AsyncThrowingStream<IncomingReply, Error>,
        resend: @Sendable (DealerConnection) -> AsyncThrowingStream<IncomingReply, Error>,
        to continuation: AsyncThrowingStream<IncomingReply, Error>.Continuation
    ) async {
        let deadline = ContinuousClock.now + configuration.deadline
        var attempt = first
        var replies = replies
        var tried: [Int] = []
        while true {
            tried.append(attempt.index)
            let outcome = await follow(replies, of: op, on: attempt, to: continuation)
            let endpoint = configuration.endpoints[attempt.index]
            switch outcome {
            case .finished:
                markAlive(attempt)
                continuation.finish()
                return
            case .failed(let error):
                markAlive(attempt)
                continuation.finish(throwing: error)
                return
            case .lost(let delivered):
                markDead(attempt)
                if Task.isCancelled {
                    continuation.finish()
                    return
                }
                if members.withLock({ $0.isClosed }) {
                    continuation.finish(throwing: LightboxError(.cancelled, "The connection to the pickers was closed."))
                    return
                }
                let lost = PickerLost(endpoint: endpoint)
                if delivered {
                    continuation.finish(throwing: LightboxError(
                        .timeout, "lightbox-picker at \(endpoint) stopped answering in the middle of \(op); part of its answer had arrived. "
                            + "Send the request again: it goes to the next picker.", cause: lost))
                    return
                }
                guard PickerEndpoints.repeatableOperations.contains(op) else {
                    continuation.finish(throwing: LightboxError(
                        .timeout, "lightbox-picker at \(endpoint) stopped answering while \(op) was under way. It was not sent to another "
                            + "picker because it may already have been carried out: check its effect before trying again.", cause: lost))
                    return
                }
                let next = ContinuousClock.now < deadline ? try? choose(excluding: Set(tried)) : nil
                guard let next else {
                    let names = tried.map { configuration.endpoints[$0] }.joined(separator: ", ")
                    continuation.finish(throwing: LightboxError(
                        .timeout, "No picker answered \(op); tried \(names). Are the pickers running, and is this app's key registered?",
                        cause: lost))
                    return
                }
                attempt = next
                replies = resend(next.connection)
            }
        }
    }

    /// Relays one try's replies to the app while a watchdog listens for its picker dying.
    private func follow(
        _ replies: AsyncThrowingStream<IncomingReply, Error>, of op: OperationName, on attempt: Attempt,
        to continuation: AsyncThrowingStream<IncomingReply, Error>.Continuation
    ) async -> TryOutcome {
        let watch = RequestWatch()
        let disconnections = attempt.connection.disconnections
        let suspect = members.withLock { $0.all[attempt.index].disconnectionsWhenHeard } != disconnections
        return await withTaskGroup(of: TryOutcome?.self) { group in
            group.addTask {
                do {
                    for try await reply in replies {
                        // A reply after the watchdog gave the picker up is not the app's any more.
                        guard watch.heard(delivering: true) else { return nil }
                        continuation.yield(reply)
                    }
                    return .finished
                } catch {
                    return self.classify(error, of: op, on: attempt, watch: watch)
                }
            }
            group.addTask { await self.watchdog(attempt.connection, watch: watch, disconnections: disconnections, suspect: suspect) }
            var outcome: TryOutcome = .finished
            for await result in group {
                if let result {
                    outcome = result
                    break
                }
            }
            group.cancelAll()
            return outcome
        }
    }

    /// An error of the try: the picker's own answer, or a sign that it is gone.
    private func classify(_ error: any Error, of op: OperationName, on attempt: Attempt, watch: RequestWatch) -> TryOutcome? {
        guard let error = error as? LightboxError else { return .failed(error) }
        // Closed by the app: the request ends as on a closed DealerConnection.
        let (closed, replaced) = members.withLock { ($0.isClosed, $0.all[attempt.index].connection !== attempt.connection) }
        if closed { return .failed(error) }
        // Closed because another request found this picker dead, or (for a read) no reply within its time.
        if (error.code == .cancelled && replaced) || (error.code == .timeout && PickerEndpoints.repeatableOperations.contains(op)) {
            return watch.lose()
        }
        return .failed(error)
    }

    /// Returns `.lost` once the picker's connection was lost, or it stayed silent `failoverTime`
    /// (at once when `suspect`: it lost its connection since it last answered) and then did not
    /// answer a ping within `failoverTime`; nil when the try ended first.
    private func watchdog(_ connection: DealerConnection, watch: RequestWatch, disconnections: Int, suspect: Bool) async -> TryOutcome? {
        let failoverTime = configuration.failoverTime
        let tick = min(failoverTime, .milliseconds(200))
        var suspect = suspect
        while !Task.isCancelled {
            try? await Task.sleep(for: tick)
            if Task.isCancelled { return nil }
            // A new connection does not know the requests sent on the old one.
            if connection.disconnections != disconnections { return watch.lose() }
            guard suspect || watch.silence >= failoverTime else { continue }
            suspect = false
            do {
                _ = try await connection.request(.ping, Empty(), as: ServiceIdentity.self, timeout: failoverTime)
                _ = watch.heard(delivering: false)
            } catch {
                if Task.isCancelled { return nil }
                return watch.lose()
            }
        }
        return nil
    }
}

/// How one try of a request at one picker ended.
private enum TryOutcome: Sendable {
    case finished
    case failed(any Error)
    /// The picker stopped answering; `delivered` says whether a reply had reached the app.
    case lost(delivered: Bool)
}

/// The cause of a failover connection's `timeout` when a picker stopped answering: a credit
/// stream may start again at the next picker.
struct PickerLost: Error, Sendable {
    var endpoint: String
}

/// What one try of a request has heard from its picker, shared by the relay and its watchdog.
private final class RequestWatch: Sendable {
    private struct State {
        var lastHeard = ContinuousClock.now
        var delivered = false
        var lost = false
    }

    private let state = Mutex(State())

    /// Notes a sign of life (a reply, or a ping answered); false once the try was given up.
    func heard(delivering: Bool) -> Bool {
        state.withLock { state in
            guard !state.lost else { return false }
            state.lastHeard = .now
            if delivering { state.delivered = true }
            return true
        }
    }

    var silence: Duration { ContinuousClock.now - state.withLock { $0.lastHeard } }

    /// Gives the try up; says whether a reply had reached the app.
    func lose() -> TryOutcome {
        state.withLock { state in
            state.lost = true
            return .lost(delivered: state.delivered)
        }
    }
}

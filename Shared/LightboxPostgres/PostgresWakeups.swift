import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Wake-ups between processes that share one PostgreSQL database (several pickers, a replaced auth):
/// `LISTEN` on a few channels, `NOTIFY` inside the transaction that made the change, so a wake-up is
/// sent only once the change is committed. Payloads are small (identifiers, never rows): a woken
/// process reads what changed from the tables.
///
/// A notification sent while this process was not listening is lost — PostgreSQL keeps none for a
/// listener that is gone — so each time listening starts (the first time, and after a dropped
/// connection) every subscriber gets `.listening`: read the state again, then follow the wake-ups.
/// A subscriber that comes while listening gets `.listening` at once (unless it subscribed before
/// making the change it waits for), and one that falls more than its capacity behind gets it too,
/// after what it kept.
///
/// `run()` holds one of the storage's pooled connections while it listens, for every channel and
/// subscriber: a process shares one instance among its parts. Run it as a child task or a Service
/// for as long as wake-ups are wanted.
public final class PostgresWakeups: Sendable {
    public enum Wakeup: Sendable, Equatable {
        /// Listening (again): anything sent before may have been missed.
        case listening
        case notified(channel: String, payload: String)
    }

    /// The longest payload PostgreSQL accepts is 8000 bytes; ours carry identifiers.
    public static let maximumPayloadBytes = 1024

    public let channels: [String]
    private let storage: PostgresStorage
    private let state = Mutex(State())
    /// The wait before listening again after the connection dropped, doubled up to `longestRetry`.
    private let firstRetry: Duration
    private let longestRetry: Duration

    /// Wake-ups on `channels` (plain SQL identifiers: lower-case letters, digits, underscores).
    public init(storage: PostgresStorage, channels: [String], firstRetry: Duration = .milliseconds(100),
                longestRetry: Duration = .seconds(5)) {
        for channel in channels { precondition(PlainIdentifier.isValid(channel), "not a plain SQL identifier: \(channel)") }
        self.storage = storage
        self.channels = channels
        self.firstRetry = firstRetry
        self.longestRetry = longestRetry
    }

    private struct State {
        var subscribers: [UUID: Subscriber] = [:]
        /// Whether every channel is listened to now.
        var isListening = false
    }

    private struct Subscriber {
        /// The channels it follows; nil: all of them.
        var channels: Set<String>?
        var continuation: AsyncStream<Wakeup>.Continuation
    }

    /// The wake-ups on `channels` (all of this instance's when nil) from now on, keeping at most
    /// `capacity` unread (then `.listening` stands for what was dropped). When listening already, it
    /// begins with `.listening` if `announcingListening`: a follower that read the state before it
    /// subscribed may have missed wake-ups. A waiter that subscribes before the change it waits for
    /// can miss none and passes false. Ends when the caller stops iterating.
    public func wakeups(on channels: Set<String>? = nil, capacity: Int = 1024, announcingListening: Bool = true) -> AsyncStream<Wakeup> {
        if let channels { precondition(channels.isSubset(of: self.channels), "not listened to: \(channels.subtracting(self.channels))") }
        let (stream, continuation) = AsyncStream.makeStream(of: Wakeup.self, bufferingPolicy: .bufferingNewest(max(capacity, 2)))
        let id = UUID()
        state.withLock { state in
            state.subscribers[id] = Subscriber(channels: channels, continuation: continuation)
            if state.isListening && announcingListening { continuation.yield(.listening) }
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Listens until the task is cancelled, listening again (after a growing pause) whenever the
    /// connection drops or the server cannot be reached.
    public func run() async {
        defer { state.withLock { $0.isListening = false } }
        var retry = firstRetry
        while !Task.isCancelled {
            let listened = Mutex(false)
            do {
                try await listenOnce { listened.withLock { $0 = true } }
            } catch {
                // A connection that was listening starts the pauses afresh.
                if listened.withLock({ $0 }) { retry = firstRetry }
                guard !Task.isCancelled else { return }
                storage.logger.warning("Wake-ups from the database at \(storage.location) stopped; listening again in \(retry).",
                                       metadata: ["cause": "\(error)"])
            }
            state.withLock { $0.isListening = false }
            try? await Task.sleep(for: retry)
            retry = min(retry * 2, longestRetry)
        }
    }

    /// Sends `payload` on `channel` from inside a transaction: PostgreSQL delivers it when (and only
    /// if) the transaction commits, once even if sent several times.
    public static func notify(_ channel: String, _ payload: String, on connection: PostgresConnection, logger: Logger) async throws {
        precondition(PlainIdentifier.isValid(channel), "not a plain SQL identifier: \(channel)")
        guard payload.utf8.count <= maximumPayloadBytes else {
            throw PostgresStorageError(code: .internal, message: "A wake-up on \(channel) was \(payload.utf8.count) bytes long; "
                                       + "at most \(maximumPayloadBytes) are sent (identifiers only).")
        }
        try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    private func listenOnce(whenListening: @escaping @Sendable () -> Void) async throws {
        try await storage.client.withConnection { connection in
            try await withThrowingTaskGroup(of: Void.self) { group in
                let ready = ListeningCount()
                for channel in channels {
                    group.addTask {
                        try await connection.listen(on: channel) { notifications in
                            // Every channel is listened to before subscribers re-read the state.
                            if ready.oneMore() == self.channels.count {
                                whenListening()
                                self.deliver(.listening)
                            }
                            for try await notification in notifications {
                                self.deliver(.notified(channel: channel, payload: notification.payload))
                            }
                        }
                        throw PostgresStorageError(code: .timeout, message: "The database stopped sending wake-ups on \(channel).")
                    }
                }
                // A dropped connection ends every channel's sequence; the first to end ends them all.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    private func deliver(_ wakeup: Wakeup) {
        state.withLock { state in
            if wakeup == .listening { state.isListening = true }
            for subscriber in state.subscribers.values {
                if case .notified(let channel, _) = wakeup, let channels = subscriber.channels, !channels.contains(channel) { continue }
                if case .dropped = subscriber.continuation.yield(wakeup) { subscriber.continuation.yield(.listening) }
            }
        }
    }
}

/// How many channels of one connection are listened to so far.
private final class ListeningCount: Sendable {
    private let count = Mutex(0)

    func oneMore() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

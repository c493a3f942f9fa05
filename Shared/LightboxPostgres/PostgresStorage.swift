import Foundation
import Logging
import PostgresNIO

/// A service's connection pool to its PostgreSQL database (postgres-nio's `PostgresClient`), with
/// every use bounded in time: a server that is down or does not answer gives `timeout` with a
/// sentence naming it, never a hang. Run it (`run()`) as a child task or a Service for as long as it
/// is used.
public final class PostgresStorage: Sendable {
    public let location: PostgresLocation
    /// How long one use (a transaction, a query) may take, the wait for a connection included.
    public let timeLimit: Duration
    let client: PostgresClient
    let logger: Logger

    /// A pool to `location`, logging in with `password` (default `PGPASSWORD`), at most
    /// `maximumConnections` at once.
    public init(location: PostgresLocation, password: String? = ProcessInfo.processInfo.environment["PGPASSWORD"],
                maximumConnections: Int = 8, timeLimit: Duration = .seconds(10), logger: Logger) {
        var configuration = location.clientConfiguration(password: password)
        configuration.options.maximumConnections = maximumConnections
        self.location = location
        self.timeLimit = timeLimit
        self.logger = logger
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Keeps the pool's connections until the task is cancelled.
    public func run() async {
        // postgres-nio's client closes its pool at the first sign of a service group's graceful
        // shutdown, when a service still needs it: for the requests given time to finish and the
        // writes made on the way out. A detached task inherits no task locals, so the pool runs
        // without that sign, until this task is cancelled.
        let client = self.client
        let running = Task.detached { await client.run() }
        await withTaskCancellationHandler {
            await running.value
        } onCancel: {
            running.cancel()
        }
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`, rolled back if it throws): once this
    /// returns, what it wrote is committed (and durable, under the server's default
    /// `synchronous_commit`).
    public func transaction<Result: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws(PostgresStorageError) -> Result {
        let (client, logger) = (self.client, self.logger)
        return try await bounded(doing) {
            try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs `body` with a connection of the pool, outside any transaction.
    public func withConnection<Result: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws(PostgresStorageError) -> Result {
        let client = self.client
        return try await bounded(doing) {
            try await client.withConnection { connection in try await body(connection) }
        }
    }

    /// `work`'s result, or `timeout` once `timeLimit` has passed. The limit does not wait for
    /// `work` to notice its cancellation: postgres-nio does not always end a query whose server
    /// went away (a connection killed mid-query can leave it waiting), and a request must be
    /// answered within its bound all the same. `work` is cancelled and left to end on its own.
    private func bounded<Result: Sendable>(
        _ doing: String, _ work: @escaping @Sendable () async throws -> Result
    ) async throws(PostgresStorageError) -> Result {
        let (location, timeLimit) = (self.location, self.timeLimit)
        let outcome = FirstOutcome<Result>()
        let working = Task {
            do { outcome.settle(.success(try await work())) } catch { outcome.settle(.failure(error)) }
        }
        let timing = Task {
            try? await Task.sleep(for: timeLimit)
            outcome.settle(.failure(PostgresStorageError(
                code: .timeout,
                message: "The database server at \(location) did not \(doing) within \(timeLimit). Is it running, and reachable from here?")))
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
        working.cancel()
        timing.cancel()
        switch result {
        case .success(let value):
            return value
        case .failure(let error as PostgresStorageError):
            throw error
        case .failure(let error):
            throw PostgresStorageError(failure: error, location: location, doing: doing)
        }
    }
}

extension PostgresStorageError {
    /// A failure of postgres-nio as a sentence: the server's own message and SQLSTATE when it refused,
    /// `timeout` when it could not be reached.
    init(failure: any Error, location: PostgresLocation, doing: String) {
        if let transaction = failure as? PostgresTransactionError,
           let underneath = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
            self.init(failure: underneath, location: location, doing: doing)
            return
        }
        // One of ours, thrown inside a transaction, already says what went wrong.
        if let own = failure as? PostgresStorageError {
            self = own
            return
        }
        guard let error = failure as? PSQLError else {
            self.init(code: .internal, message: "The database at \(location) could not \(doing).", cause: "\(failure)")
            return
        }
        if let server = error.serverInfo {
            let state = server[.sqlState] ?? "?"
            self.init(code: .internal, message: "The database at \(location) refused to \(doing): \(server[.message] ?? "no reason given").",
                      cause: "SQLSTATE \(state)")
            return
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed, .clientClosedConnection:
            self.init(code: .timeout, message: "The database server at \(location) could not be reached to \(doing). Is it running?",
                      cause: "\(error.code)\(error.underlying.map { ": \($0)" } ?? "")")
        default:
            self.init(code: .internal, message: "The database at \(location) could not \(doing).", cause: "\(error.code)")
        }
    }
}

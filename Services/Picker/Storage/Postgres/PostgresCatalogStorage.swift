import Foundation
import LightboxPostgres
import Logging
import PostgresNIO

/// The catalog in a PostgreSQL database (`--database postgres://…`), which several pickers can
/// share; the schema is `PostgresCatalogSchema`'s. Every write is one transaction, acknowledged
/// once committed.
struct PostgresCatalogStorage: CatalogStorage {
    let postgres: PostgresStorage
    let logger: Logger
    /// `library.query` totals, per state of the library and the selection.
    let counts = QueryCounts()
    /// Picks in the database, listed and answered through every picker.
    let pickSessions: any PickSessionStorage
    /// Other pickers' library changes, picks and derivative releases, on one listening connection.
    let wakeups: PostgresWakeups

    init(postgres: PostgresStorage, logger: Logger) {
        self.postgres = postgres
        self.logger = logger
        wakeups = PostgresWakeups(storage: postgres, channels: [
            Self.changeChannel, PostgresPickSessions.filedChannel, PostgresPickSessions.answeredChannel, PostgresWorkClaims.releaseChannel,
        ])
        pickSessions = PostgresPickSessions(postgres: postgres, wakeups: wakeups, logger: logger)
    }

    var selections: any SelectionStorage { PostgresSelections(postgres: postgres, logger: logger) }
    var watchedFiles: any WatchedFileStorage { PostgresWatchedFiles(postgres: postgres, logger: logger) }
    var providerTokens: any ProviderTokenStorage { PostgresProviderTokens(postgres: postgres, logger: logger) }

    /// Keeps the pool's connections, and listens for other pickers' wake-ups, while the picker serves.
    func run() async {
        async let _ = wakeups.run()
        await postgres.run()
    }

    /// Brings the schema up to date (several pickers starting at once apply each migration once).
    func prepare() async throws {
        try await PostgresCatalogSchema.migrator.migrate(postgres)
    }

    /// The advisory lock every transaction that adds change rows holds until it ends. An identity
    /// column hands out tokens when rows are inserted, not when they commit: without it a reader
    /// could see token 8 committed while 7 is still to come, move its watermark past 7 and never
    /// deliver it. Held from before the first token is drawn until the commit, the next writer draws
    /// its tokens only after this one's are visible, so readers see tokens in order.
    static let changeLogLock: Int64 = 0x6C62_6368_616E_6765 // "lbchange"

    /// Library changes a write adds, inserted in order at the end of its transaction.
    struct ChangeRows: Sendable {
        fileprivate var rows: [(kind: LibraryChangeLog.Kind, asset: String?, album: String?)] = []

        mutating func append(_ kind: LibraryChangeLog.Kind, asset: String? = nil, album: String? = nil) {
            rows.append((kind, asset, album))
        }
    }

    /// Runs `body` in one transaction holding `changeLogLock`, then records the changes it listed.
    func writingChanges<Result: Sendable>(
        _ doing: String, _ body: @escaping @Sendable (PostgresConnection, inout ChangeRows) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        return try await postgres.transaction(doing) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.changeLogLock))", logger: logger)
            var changes = ChangeRows()
            let result = try await body(connection, &changes)
            let now = Date()
            for change in changes.rows {
                try await connection.query("""
                    INSERT INTO libraryChange (kind, asset, album, at) VALUES (\(change.kind.rawValue), \(change.asset), \(change.album), \(now))
                    """, logger: logger)
            }
            if !changes.rows.isEmpty { try await Self.wakeOtherPickers(on: connection, logger: logger) }
            return result
        }
    }

    /// The rows of a query, each made into a value.
    func rows<Value: Sendable>(_ doing: String, _ query: PostgresQuery, _ make: @escaping @Sendable (PostgresRow) throws -> Value) async throws -> [Value] {
        let logger = self.logger
        return try await postgres.withConnection(doing) { connection in
            var values: [Value] = []
            for try await row in try await connection.query(query, logger: logger) { values.append(try make(row)) }
            return values
        }
    }

    func rows<Value: Sendable>(_ doing: String, _ statement: PostgresStatement, _ make: @escaping @Sendable (PostgresRow) throws -> Value) async throws -> [Value] {
        try await rows(doing, statement.query, make)
    }

    /// Whether a query returned a row.
    static func exists(_ rows: PostgresRowSequence) async throws -> Bool {
        for try await _ in rows { return true }
        return false
    }

    /// The first row of a query, made into a value.
    static func first<Value>(_ rows: PostgresRowSequence, _ make: (PostgresRow) throws -> Value) async throws -> Value? {
        for try await row in rows { return try make(row) }
        return nil
    }

    /// Runs `work` and waits for it on the calling thread: for the few reads the picker makes on a
    /// pool thread, inside a blocking job.
    func waitingForAnswer<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let answer = BlockingAnswer<Value>()
        Task {
            do { answer.give(.success(try await work())) } catch { answer.give(.failure(error)) }
        }
        return try answer.wait().get()
    }
}

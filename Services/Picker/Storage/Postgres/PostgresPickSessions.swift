import Foundation
import LightboxPostgres
import LightboxProtocol
import Logging
import PostgresNIO

/// Pick sessions in PostgreSQL's `picker_pick_sessions`, shared by every picker on the database: the
/// owner connected to any picker lists and answers them. Filing and answering send a wake-up (the pick's
/// id) in their transaction; the holder, woken, reads the answer and delivers it to its app.
///
/// A holder renews `heldUntil` of its picks while it runs; the picks of a picker that was killed stop
/// being listed (and cannot be answered) once their lease ends, and are deleted later by any picker.
struct PostgresPickSessions: PickSessionStorage {
    static let filedChannel = "picker_pick_filed"
    static let answeredChannel = "picker_pick_answered"
    /// With `hashtext(app)`, the advisory lock under which an app's waiting picks are counted and one added.
    static let appLockClass: Int32 = 0x6C62_706B // "lbpk"
    /// How long rows whose holder stopped renewing stay before they are deleted.
    static let abandonedRowsKept = 60.0

    static let schema = [
        """
        CREATE TABLE picker_pick_sessions (
            id TEXT PRIMARY KEY,
            app TEXT NOT NULL,
            appName TEXT,
            configuration TEXT NOT NULL,
            createdAt TIMESTAMPTZ NOT NULL,
            expiresAt TIMESTAMPTZ NOT NULL,
            holder TEXT NOT NULL,
            holderKey BYTEA NOT NULL,
            heldUntil TIMESTAMPTZ NOT NULL,
            answer TEXT
        )
        """,
        "CREATE INDEX picker_pick_sessions_on_app ON picker_pick_sessions (app)",
        "CREATE INDEX picker_pick_sessions_on_holder ON picker_pick_sessions (holder)",
    ]

    private static let columns = "id, app, appName, configuration, createdAt, expiresAt, holder, holderKey, answer"
    /// Waiting, as the owner is shown picks: unanswered, not timed out, its holder alive.
    private static let isWaiting = "answer IS NULL AND heldUntil > now()"

    let postgres: PostgresStorage
    let wakeups: PostgresWakeups
    let logger: Logger

    /// `wakeups` listens on `filedChannel` and `answeredChannel`, run by the catalog's storage.
    init(postgres: PostgresStorage, wakeups: PostgresWakeups, logger: Logger) {
        self.postgres = postgres
        self.logger = logger
        self.wakeups = wakeups
    }

    func file(_ session: PickSessionRecord, limit: Int) async throws -> Bool {
        let logger = self.logger
        let configuration = try Self.json(session.configuration)
        return try await postgres.transaction("file a pick") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.appLockClass), hashtext(\(session.app)))", logger: logger)
            try await connection.query("""
                DELETE FROM picker_pick_sessions WHERE heldUntil < now() - make_interval(secs => \(Self.abandonedRowsKept))
                """, logger: logger)
            let count = try await PostgresCatalogStorage.first(connection, logger, """
                SELECT count(*) FROM picker_pick_sessions WHERE app = \(session.app) AND expiresAt > \(Date())
                    AND \(unescaped: Self.isWaiting)
                """, Int64.self) ?? 0
            guard count < limit else { return false }
            try await connection.query("""
                INSERT INTO picker_pick_sessions (id, app, appName, configuration, createdAt, expiresAt, holder, holderKey, heldUntil)
                VALUES (\(session.id), \(session.app), \(session.appName), \(configuration), \(session.createdAt), \(session.expiresAt),
                        \(session.holder), \(session.holderKey), now() + make_interval(secs => \(PickSessionStore.lease.seconds)))
                """, logger: logger)
            try await PostgresWakeups.notify(Self.filedChannel, session.id, on: connection, logger: logger)
            return true
        }
    }

    func waiting(at now: Date) async throws -> [PickSessionRecord] {
        try await records("list the waiting picks", """
            SELECT \(unescaped: Self.columns) FROM picker_pick_sessions WHERE \(unescaped: Self.isWaiting) AND expiresAt > \(now)
            ORDER BY createdAt, id
            """)
    }

    func waiting(_ id: String, at now: Date) async throws -> PickSessionRecord? {
        try await records("read a waiting pick", """
            SELECT \(unescaped: Self.columns) FROM picker_pick_sessions WHERE id = \(id) AND \(unescaped: Self.isWaiting) AND expiresAt > \(now)
            """).first
    }

    func answer(_ id: String, with answer: PickAnswer, filedBy app: String?) async throws -> PickSessionRecord? {
        let logger = self.logger
        let text = try Self.json(answer)
        return try await postgres.transaction("answer a pick") { connection in
            // Only the first answer finds the row unanswered; a second waits for the first's commit, then finds it answered.
            guard let record = try await PostgresCatalogStorage.first(connection.query("""
                UPDATE picker_pick_sessions SET answer = \(text)
                WHERE id = \(id) AND \(unescaped: Self.isWaiting) AND (\(app)::text IS NULL OR app = \(app))
                RETURNING \(unescaped: Self.columns)
                """, logger: logger), PickSessionRecord.init(postgres:)) else { return nil }
            try await PostgresWakeups.notify(Self.answeredChannel, id, on: connection, logger: logger)
            return record
        }
    }

    func answered(among ids: [String]) async throws -> [PickSessionRecord] {
        guard !ids.isEmpty else { return [] }
        return try await records("read answered picks", """
            SELECT \(unescaped: Self.columns) FROM picker_pick_sessions WHERE id = ANY(\(ids)) AND answer IS NOT NULL
            """)
    }

    func remove(_ id: String) async throws {
        let logger = self.logger
        try await postgres.transaction("forget a delivered pick") { connection in
            _ = try await connection.query("DELETE FROM picker_pick_sessions WHERE id = \(id)", logger: logger)
        }
    }

    func renew(holder: String, for lease: Duration) async throws {
        let logger = self.logger
        try await postgres.transaction("renew the picks' lease") { connection in
            _ = try await connection.query("""
                UPDATE picker_pick_sessions SET heldUntil = now() + make_interval(secs => \(lease.seconds)) WHERE holder = \(holder)
                """, logger: logger)
        }
    }

    func follow(_ changed: @escaping @Sendable (PickSessionChange) async -> Void) async {
        for await wakeup in wakeups.wakeups(on: [Self.filedChannel, Self.answeredChannel]) {
            switch wakeup {
            case .listening: await changed(.reread)
            case .notified(Self.filedChannel, let pick): await changed(.filed(pick: pick))
            case .notified(_, let pick): await changed(.answered(pick: pick))
            }
        }
    }

    private func records(_ doing: String, _ query: PostgresQuery) async throws -> [PickSessionRecord] {
        let logger = self.logger
        return try await postgres.withConnection(doing) { connection in
            var records: [PickSessionRecord] = []
            for try await row in try await connection.query(query, logger: logger) { records.append(try PickSessionRecord(postgres: row)) }
            return records
        }
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

extension PickSessionRecord {
    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        let id: String = try cells.next(), app: String = try cells.next(), appName: String? = try cells.next()
        let configuration: String = try cells.next(), createdAt: Date = try cells.next(), expiresAt: Date = try cells.next()
        let holder: String = try cells.next(), holderKey: Data = try cells.next(), answer: String? = try cells.next()
        let decoder = JSONDecoder()
        self.init(id: id, app: app, appName: appName, configuration: try decoder.decode(PickerConfiguration.self, from: Data(configuration.utf8)),
                  createdAt: createdAt, expiresAt: expiresAt, holder: holder, holderKey: holderKey,
                  answer: try answer.map { try decoder.decode(PickAnswer.self, from: Data($0.utf8)) })
    }
}

import Logging
import PostgresNIO

/// A service's schema on PostgreSQL, as a list of named migrations applied once each and in order, the
/// PostgreSQL side of what GRDB's `DatabaseMigrator` does for SQLite. All pending migrations run in
/// one transaction that first takes an advisory lock, so several processes starting at once (several
/// pickers on one database) apply each migration exactly once, and a failing one leaves nothing half
/// done.
public struct PostgresMigrator: Sendable {
    public struct Migration: Sendable {
        public let identifier: String
        /// The statements, run in order.
        public let statements: [String]
    }

    /// The table recording which migrations ran (one per service sharing a database).
    public let table: String
    public private(set) var migrations: [Migration] = []

    /// `table` is an SQL identifier of lower-case letters, digits and underscores.
    public init(table: String) {
        precondition(PlainIdentifier.isValid(table), "not a plain SQL identifier: \(table)")
        self.table = table
    }

    public mutating func register(_ identifier: String, _ statements: [String]) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration \(identifier) registered twice")
        migrations.append(Migration(identifier: identifier, statements: statements))
    }

    /// Applies the migrations not applied yet; returns their identifiers.
    @discardableResult
    public func migrate(_ storage: PostgresStorage) async throws(PostgresStorageError) -> [String] {
        let (table, migrations, logger) = (self.table, self.migrations, storage.logger)
        return try await storage.transaction("bring its tables up to date") { connection in
            // Held until the transaction ends: a second process waits here, then sees what the first applied.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(table)))", logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table) (identifier TEXT PRIMARY KEY, appliedAt TIMESTAMPTZ NOT NULL DEFAULT now())"),
                logger: logger)
            var applied: Set<String> = []
            for try await identifier in try await connection.query(PostgresQuery(unsafeSQL: "SELECT identifier FROM \(table)"), logger: logger)
                .decode(String.self) {
                applied.insert(identifier)
            }
            var pending: [String] = []
            for migration in migrations where !applied.contains(migration.identifier) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                var insert = PostgresQuery(unsafeSQL: "INSERT INTO \(table) (identifier) VALUES ($1)")
                insert.binds.append(migration.identifier, context: .default)
                try await connection.query(insert, logger: logger)
                pending.append(migration.identifier)
            }
            return pending
        }
    }
}

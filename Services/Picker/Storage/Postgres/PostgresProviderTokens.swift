import Foundation
import LightboxPostgres
import Logging
import PostgresNIO

/// Item-provider tokens in PostgreSQL's `providerToken`: a token issued by one picker loads
/// through any other on the same database.
struct PostgresProviderTokens: ProviderTokenStorage {
    let postgres: PostgresStorage
    let logger: Logger

    func insert(_ records: [TokenRecord]) async throws {
        guard !records.isEmpty else { return }
        let logger = self.logger
        try await postgres.transaction("issue item-provider tokens") { connection in
            for record in records {
                try await connection.query("""
                    INSERT INTO providerToken (\(unescaped: TokenRecord.postgresColumns)) VALUES (\(record.tokenHash), \(record.app), \(record.asset),
                        \(record.pick), \(record.issuedAt), \(record.expiresAt), \(record.revokedAt), \(record.types), \(record.strip))
                    """, logger: logger)
            }
        }
    }

    func delete(hashed hashes: [String]) async throws {
        guard !hashes.isEmpty else { return }
        let logger = self.logger
        _ = try await postgres.transaction("discard item-provider tokens") { connection in
            try await connection.query("DELETE FROM providerToken WHERE tokenHash = ANY(\(hashes))", logger: logger)
        }
    }

    /// The token, then (when it is `app`'s) its asset's current version, on one connection: an asset
    /// removed between the two reads reads as removed, as it would a moment later.
    func token(hashed hash: String, withAssetFor app: String) async throws -> (token: TokenRecord?, asset: AssetRecord?) {
        let logger = self.logger
        return try await postgres.withConnection("read an item-provider token") { connection in
            guard let token = try await PostgresCatalogStorage.first(connection.query("""
                SELECT \(unescaped: TokenRecord.postgresColumns) FROM providerToken WHERE tokenHash = \(hash)
                """, logger: logger), TokenRecord.init(postgres:)) else { return (nil, nil) }
            guard token.app == app else { return (token, nil) }
            let asset = try await PostgresCatalogStorage.first(connection.query("""
                SELECT \(unescaped: AssetRecord.postgresColumns) FROM asset WHERE identifier = \(token.asset)
                """, logger: logger), AssetRecord.init(postgres:))
            let edit = try await PostgresCatalogStorage.edit(of: token.asset, connection, logger)
            return (token, asset.map { edit?.currentVersion(of: $0) ?? $0 })
        }
    }

    func revoke(hashed hash: String, at date: Date) async throws -> Int {
        try await revoking("revoke an item-provider token", "UPDATE providerToken SET revokedAt = \(date) WHERE tokenHash = \(hash) AND revokedAt IS NULL")
    }

    func revokeAll(of app: String, at date: Date) async throws -> Int {
        try await revoking("revoke an app's item-provider tokens", "UPDATE providerToken SET revokedAt = \(date) WHERE app = \(app) AND revokedAt IS NULL")
    }

    private func revoking(_ doing: String, _ update: PostgresQuery) async throws -> Int {
        let logger = self.logger
        return try await postgres.transaction(doing) { connection in
            var returning = update
            returning.sql += " RETURNING 1"
            var count = 0
            for try await _ in try await connection.query(returning, logger: logger) { count += 1 }
            return count
        }
    }
}

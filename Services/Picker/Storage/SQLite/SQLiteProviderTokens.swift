import Foundation
import GRDB
import LightboxStorage

/// Item-provider tokens in SQLite's `providerToken`.
struct SQLiteProviderTokens: ProviderTokenStorage {
    let database: DatabasePool

    func insert(_ records: [TokenRecord]) async throws {
        try await database.write { db in
            for record in records { try record.insert(db) }
        }
    }

    func delete(hashed hashes: [String]) async throws {
        _ = try await database.write { db in try TokenRecord.deleteAll(db, keys: hashes) }
    }

    /// A point read: every describe and load redeems a token, and reads its asset in the same snapshot.
    func token(hashed hash: String, withAssetFor app: String) async throws -> (token: TokenRecord?, asset: AssetRecord?) {
        try database.pointRead { db in
            let record = try TokenRecord.read(hashed: hash, in: db)
            return (record, try record.flatMap { $0.app == app ? try Catalog.currentVersion(db, $0.asset) : nil })
        }
    }

    func revoke(hashed hash: String, at date: Date) async throws -> Int {
        try await database.write { db in
            try TokenRecord.filter(key: hash).filter(TokenRecord.Columns.revokedAt == nil)
                .updateAll(db, TokenRecord.Columns.revokedAt.set(to: date))
        }
    }

    func revokeAll(of app: String, at date: Date) async throws -> Int {
        try await database.write { db in
            try TokenRecord.filter(TokenRecord.Columns.app == app).filter(TokenRecord.Columns.revokedAt == nil)
                .updateAll(db, TokenRecord.Columns.revokedAt.set(to: date))
        }
    }
}

extension TokenRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "providerToken"
}

/// A token row, read by position: every describe and load redeems a token.
extension TokenRecord: PositionalRecord {
    enum Columns: String, CaseIterable, ColumnExpression {
        case tokenHash, app, asset, pick, issuedAt, expiresAt, revokedAt, types, strip
    }

    init(row: inout PositionalRow<Columns>) throws {
        self.init(tokenHash: try row.read(.tokenHash), app: try row.read(.app), asset: try row.read(.asset), pick: try row.read(.pick),
                  issuedAt: try row.read(.issuedAt), expiresAt: try row.read(.expiresAt), revokedAt: try row.read(.revokedAt),
                  types: try row.read(.types), strip: try row.read(.strip))
    }

    /// The token whose hash is `hash`.
    static func read(hashed hash: String, in db: Database) throws -> TokenRecord? {
        try fetchOne(positionally: db.cachedStatement(sql: byHash), arguments: [hash])
    }

    private static let byHash = "SELECT \(selectList) FROM providerToken WHERE tokenHash = ?"
}

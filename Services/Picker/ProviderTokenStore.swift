import Foundation
import GRDB
import LightboxProtocol
import LightboxTransport

/// Item-provider tokens: 256 random bits handed to the app once, stored only as their SHA-256,
/// bound to the app that picked, expiring, revocable, and every use recorded.
struct ProviderTokenStore: Sendable {
    let database: DatabasePool
    let lifetime: Duration

    struct Grant: Sendable {
        var token: String
        var expiresAt: Date
    }

    func issue(app: String, asset: String, pick: String, now: Date = Date()) async throws -> Grant {
        let token = "lbt_" + SecureRandom.token(bytes: 32)
        let expiresAt = now.addingTimeInterval(Double(lifetime.components.seconds))
        let record = TokenRecord(tokenHash: Self.hash(token), app: app, asset: asset, pick: pick, issuedAt: now,
                                 expiresAt: expiresAt, revokedAt: nil)
        try await database.write { db in try record.insert(db) }
        return Grant(token: token, expiresAt: expiresAt)
    }

    /// The asset a token grants to `app`, or the wire error that says why not. Every attempt is audited.
    func redeem(_ token: String, by app: String, for operation: OperationName, now: Date = Date()) async throws -> String {
        let hash = Self.hash(token)
        let record = try await database.read { db in try TokenRecord.fetchOne(db, key: hash) }
        let outcome: Result<String, LightboxError>
        if let record, record.app == app {
            if record.revokedAt != nil {
                outcome = .failure(LightboxError(.tokenRevoked, "The owner revoked this item provider; ask for a new pick."))
            } else if record.expiresAt <= now {
                outcome = .failure(LightboxError(.tokenExpired, "This item provider expired at \(record.expiresAt.formatted(.iso8601)); ask for a new pick."))
            } else {
                outcome = .success(record.asset)
            }
        } else {
            // A token of another app reads exactly like a made-up one: nothing about it is revealed.
            outcome = .failure(LightboxError(.tokenUnknown, "This item provider token is not known to the picker for this app."))
        }
        let use = TokenUse(tokenHash: hash, app: app, operation: operation.rawValue, outcome: Self.describe(outcome, record: record, app: app), at: now)
        try await database.write { db in try use.insert(db) }
        return try outcome.get()
    }

    func revoke(token: String, now: Date = Date()) async throws -> Int {
        try await database.write { db in
            try TokenRecord.filter(key: Self.hash(token)).filter(Column("revokedAt") == nil)
                .updateAll(db, Column("revokedAt").set(to: now))
        }
    }

    func revokeAll(of app: String, now: Date = Date()) async throws -> Int {
        try await database.write { db in
            try TokenRecord.filter(Column("app") == app).filter(Column("revokedAt") == nil)
                .updateAll(db, Column("revokedAt").set(to: now))
        }
    }

    static func hash(_ token: String) -> String {
        SHA256Hasher.hex(Data(token.utf8))
    }

    private static func describe(_ outcome: Result<String, LightboxError>, record: TokenRecord?, app: String) -> String {
        switch outcome {
        case .success: "ok"
        case .failure(let error): record != nil && record?.app != app ? "wrongApp" : error.code.rawValue
        }
    }
}

struct TokenRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "providerToken"
    var tokenHash: String
    var app: String
    var asset: String
    var pick: String
    var issuedAt: Date
    var expiresAt: Date
    var revokedAt: Date?
}

struct TokenUse: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tokenUse"
    var id: Int64?
    var tokenHash: String
    var app: String
    var operation: String
    var outcome: String
    var at: Date

    init(tokenHash: String, app: String, operation: String, outcome: String, at: Date) {
        self.tokenHash = tokenHash
        self.app = app
        self.operation = operation
        self.outcome = outcome
        self.at = at
    }
}

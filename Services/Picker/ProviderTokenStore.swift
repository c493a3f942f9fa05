import Foundation
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization

/// Item-provider tokens: 256 random bits handed to the app once, stored only as their SHA-256,
/// bound to the app that picked, expiring, revocable; every refusal goes to the owner's audit trail.
struct ProviderTokenStore: Sendable {
    let storage: any ProviderTokenStorage
    let lifetime: Duration
    var audit: AuditReporter?

    struct Grant: Sendable {
        var token: String
        var expiresAt: Date
    }

    /// What a token grants: an asset, as these types, with this metadata removed (its location
    /// too, or approximated, unless the owner gave the app the precise one).
    struct Capability: Sendable {
        var asset: String
        var types: [UTType]
        var removal: MetadataRemoval
    }

    /// One asset's token in what a pick issues: the asset and the types it registers.
    struct Request: Sendable {
        var asset: String
        var types: [UTType]
    }

    func issue(app: String, asset: String, pick: String, types: [UTType] = [], removal: MetadataRemoval = .location,
               now: Date = Date()) async throws -> Grant {
        try await issue(app: app, pick: pick, [Request(asset: asset, types: types)], removal: removal, now: now)[0]
    }

    /// A token for each request, in their order, all in one transaction: all are stored or none is
    /// (an asset removed meanwhile fails the whole pick's answer, not half of it).
    func issue(app: String, pick: String, _ requests: [Request], removal: MetadataRemoval = .location,
               now: Date = Date()) async throws -> [Grant] {
        let expiresAt = now.addingTimeInterval(Double(lifetime.components.seconds))
        let tokens = requests.map { _ in "lbt_" + SecureRandom.token(bytes: 32) }
        let records = zip(tokens, requests).map { token, request in
            TokenRecord(tokenHash: Self.hash(token), app: app, asset: request.asset, pick: pick, issuedAt: now,
                        expiresAt: expiresAt, revokedAt: nil, types: Self.json(request.types), strip: removal.rawValue)
        }
        try await storage.insert(records)
        return tokens.map { Grant(token: $0, expiresAt: expiresAt) }
    }

    /// Removes tokens that were issued but never handed out (their pick was answered elsewhere).
    func discard(_ grants: [Grant]) async throws {
        let hashes = grants.map { Self.hash($0.token) }
        try await storage.delete(hashed: hashes)
    }

    /// The asset a token grants to `app`, or the wire error that says why not. Every attempt is audited.
    func redeem(_ token: String, by app: String, for operation: OperationName, now: Date = Date()) async throws -> String {
        try await capability(of: token, by: app, for: operation, now: now).asset
    }

    /// The capability a token grants `app`, or the wire error that says why not. Every attempt is audited.
    func capability(of token: String, by app: String, for operation: OperationName, now: Date = Date()) async throws -> Capability {
        try await capabilityAndAsset(of: token, by: app, for: operation, now: now).0
    }

    /// The capability a token grants `app`, with the current version of its asset read together
    /// with the token (nil: removed since); or the wire error that says why not. Every attempt is audited.
    func capabilityAndAsset(of token: String, by app: String, for operation: OperationName, now: Date = Date()) async throws
        -> (Capability, AssetRecord?) {
        let (record, asset) = try await storage.token(hashed: Self.hash(token), withAssetFor: app)
        let outcome: Result<(Capability, AssetRecord?), LightboxError>
        if let record, record.app == app {
            if record.revokedAt != nil {
                outcome = .failure(LightboxError(.tokenRevoked, "The owner revoked this item provider; ask for a new pick."))
            } else if record.expiresAt <= now {
                outcome = .failure(LightboxError(.tokenExpired, "This item provider expired at \(record.expiresAt.formatted(.iso8601)); ask for a new pick."))
            } else {
                outcome = .success((Capability(asset: record.asset, types: Self.types(record.types),
                                               removal: MetadataRemoval(rawValue: record.strip) ?? .all), asset))
            }
        } else {
            // A token of another app reads exactly like a made-up one: nothing about it is revealed.
            outcome = .failure(LightboxError(.tokenUnknown, "This item provider token is not known to the picker for this app."))
        }
        if case .failure(let error) = outcome {
            // Successful uses are recorded by the read itself, with what it delivered.
            audit?.record(app: app, operation: Self.auditOperation(of: operation), outcome: .refused(Self.describe(error, record: record, app: app)),
                          asset: record?.asset)
        }
        return try outcome.get()
    }

    func revoke(token: String, now: Date = Date()) async throws -> Int {
        try await storage.revoke(hashed: Self.hash(token), at: now)
    }

    func revokeAll(of app: String, now: Date = Date()) async throws -> Int {
        try await storage.revokeAll(of: app, at: now)
    }

    /// `provider.describe` → `describe`, as the audit trail names reads.
    static func auditOperation(of operation: OperationName) -> AuditOperation {
        AuditOperation(String(operation.rawValue.split(separator: ".").last ?? Substring(operation.rawValue)))
    }

    static func hash(_ token: String) -> String {
        SHA256Hasher.hex(Data(token.utf8))
    }

    private static func json(_ types: [UTType]) -> String {
        String(decoding: (try? JSONEncoder().encode(types)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// A token's registered types, decoded once per distinct list (there are few: they follow from
    /// the asset's type and the pick's configuration) rather than on every describe and load.
    private static func types(_ text: String) -> [UTType] {
        if let known = decodedTypes.withLock({ $0[text] }) { return known }
        let types = (try? JSONDecoder().decode([UTType].self, from: Data(text.utf8))) ?? []
        decodedTypes.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[text] = types
        }
        return types
    }

    private static let decodedTypes = Mutex<[String: [UTType]]>([:])

    private static func describe(_ refusal: LightboxError, record: TokenRecord?, app: String) -> String {
        record != nil && record?.app != app ? "wrongApp" : refusal.code.rawValue
    }
}

struct TokenRecord: Encodable, Sendable {
    var tokenHash: String
    var app: String
    var asset: String
    var pick: String
    var issuedAt: Date
    var expiresAt: Date
    var revokedAt: Date?
    /// JSON array of the registered type identifiers.
    var types: String
    /// What a delivery removes: a `MetadataRemoval` raw value (tokens issued before location
    /// consent read `none` as `location`, see the catalog's migrations).
    var strip: String
}


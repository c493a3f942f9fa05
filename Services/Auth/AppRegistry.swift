import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The registered apps and their manifests, keyed by id and by CURVE public key.
public struct AppRegistry: Sendable {
    let database: DatabasePool

    init(database: DatabasePool) {
        self.database = database
    }

    /// Registers an app, or replaces its manifest (a new key rotates the app's identity).
    public func register(_ manifest: AppManifest) async throws -> AppManifest {
        guard AppManifest.isValidID(manifest.id) else {
            throw LightboxError(.badRequest, "App id \"\(manifest.id)\" is not valid: use up to 64 letters, digits, dots, dashes or underscores.")
        }
        guard !manifest.name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw LightboxError(.badRequest, "An app needs a display name (--name).")
        }
        guard isValidPublicKey(manifest.publicKey) else {
            throw LightboxError(.badRequest, "The public key must be 40 characters of Z85 text (a CURVE key).")
        }
        return try await database.write { db in
            if let other = try AppRecord.filter(AppRecord.Columns.publicKey == manifest.publicKey).fetchOne(db), other.id != manifest.id {
                throw LightboxError(.badRequest, "That public key already belongs to app \"\(other.id)\"; every app needs its own key.")
            }
            try AppRecord(manifest, registeredAt: Date()).save(db)
            return manifest
        }
    }

    public func apps() async throws -> [AppManifest] {
        try await database.detachedRead { db in try AppRecord.order(AppRecord.Columns.id).fetchAll(db).map(\.manifest) }
    }

    public func app(withPublicKey key: String) async throws -> AppManifest? {
        try await database.detachedRead { db in try AppRecord.filter(AppRecord.Columns.publicKey == key).fetchOne(db)?.manifest }
    }

    public func app(withID id: String) async throws -> AppManifest? {
        try await database.detachedRead { db in try AppRecord.fetchOne(db, key: id)?.manifest }
    }

    private func isValidPublicKey(_ key: String) -> Bool {
        let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
        return key.count == 40 && key.allSatisfy { alphabet.contains($0) }
    }
}

struct AppRecord: Encodable, FetchableRecord, PersistableRecord, PositionalRecord {
    static let databaseTableName = "app"

    enum Columns: String, CaseIterable, ColumnExpression {
        case id, name, publicKey, usageReadWrite, usageAddOnly, preventAutomaticLimitedAccessAlert, registeredAt
    }

    var id: String
    var name: String
    var publicKey: String
    var usageReadWrite: String?
    var usageAddOnly: String?
    var preventAutomaticLimitedAccessAlert: Bool
    var registeredAt: Date

    init(_ manifest: AppManifest, registeredAt: Date) {
        id = manifest.id
        name = manifest.name
        publicKey = manifest.publicKey
        usageReadWrite = manifest.usageReadWrite
        usageAddOnly = manifest.usageAddOnly
        preventAutomaticLimitedAccessAlert = manifest.preventAutomaticLimitedAccessAlert
        self.registeredAt = registeredAt
    }

    init(row: inout PositionalRow<Columns>) throws {
        id = try row.read(.id)
        name = try row.read(.name)
        publicKey = try row.read(.publicKey)
        usageReadWrite = try row.read(.usageReadWrite)
        usageAddOnly = try row.read(.usageAddOnly)
        preventAutomaticLimitedAccessAlert = try row.read(.preventAutomaticLimitedAccessAlert)
        registeredAt = try row.read(.registeredAt)
    }

    var manifest: AppManifest {
        AppManifest(id: id, name: name, publicKey: publicKey, usageReadWrite: usageReadWrite, usageAddOnly: usageAddOnly,
                    preventAutomaticLimitedAccessAlert: preventAutomaticLimitedAccessAlert)
    }
}

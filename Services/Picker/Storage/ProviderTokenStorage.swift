import Foundation

/// Item-provider tokens by their SHA-256 (`ProviderTokenStore` makes and checks them).
protocol ProviderTokenStorage: Sendable {
    /// Stores the tokens in one transaction: all or none.
    func insert(_ records: [TokenRecord]) async throws
    func delete(hashed hashes: [String]) async throws
    /// The token, and when it belongs to `app` the current version of its asset (nil: removed), read together.
    func token(hashed hash: String, withAssetFor app: String) async throws -> (token: TokenRecord?, asset: AssetRecord?)
    /// Revokes the token unless it is revoked already; returns how many were.
    func revoke(hashed hash: String, at date: Date) async throws -> Int
    /// Revokes every token of `app` not revoked already; returns how many were.
    func revokeAll(of app: String, at date: Date) async throws -> Int
}

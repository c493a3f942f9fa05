import Foundation
import LightboxProtocol

/// The registered apps and their manifests, keyed by id and by CURVE public key.
public struct AppRegistry: Sendable {
    let storage: any AuthStorage

    init(storage: any AuthStorage) {
        self.storage = storage
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
        if let other = try await storage.saveApp(manifest, registeredAt: Date()) {
            throw LightboxError(.badRequest, "That public key already belongs to app \"\(other)\"; every app needs its own key.")
        }
        return manifest
    }

    public func apps() async throws -> [AppManifest] {
        try await storage.apps()
    }

    public func app(withPublicKey key: String) async throws -> AppManifest? {
        try await storage.app(withPublicKey: key)
    }

    public func app(withID id: String) async throws -> AppManifest? {
        try await storage.app(withID: id)
    }

    private func isValidPublicKey(_ key: String) -> Bool {
        let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
        return key.count == 40 && key.allSatisfy { alphabet.contains($0) }
    }
}

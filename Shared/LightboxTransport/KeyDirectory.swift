import Foundation
import Synchronization

/// Where a data directory keeps keys: `keys/<name>.key` (secret, 0600) and `keys/<name>.pub` for the
/// services and the owner, `apps/<id>.key` for apps registered on this machine.
public struct KeyDirectory: Sendable {
    public let root: URL

    public init(dataDirectory: URL) {
        root = dataDirectory
    }

    public static let authService = "auth"
    public static let pickerService = "picker"
    public static let owner = "owner"
    /// lightbox-portal's key; it vouches for the desktop apps it names.
    public static let portalService = "portal"

    public func keyURL(_ name: String) -> URL { root.appendingPathComponent("keys/\(name).key") }
    public func publicKeyURL(_ name: String) -> URL { root.appendingPathComponent("keys/\(name).pub") }
    public func appKeyURL(_ appID: String) -> URL { root.appendingPathComponent("apps/\(appID).key") }

    public func loadOrCreateKeyPair(_ name: String) throws -> CurveKeyPair {
        try CurveKeyPair.loadOrCreate(at: keyURL(name))
    }

    /// A service's public key, read once it exists: a service started first recognizes one that
    /// writes its key on its first start later.
    public func laterKey(_ name: String) -> LaterPublicKey {
        LaterPublicKey(url: publicKeyURL(name))
    }

    /// The public key of a service or the owner, waiting up to `timeout` for its first start to write it.
    public func publicKey(_ name: String, waitingUpTo timeout: Duration = .zero) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            do { return try CurveKeyPair.loadPublicKey(from: publicKeyURL(name)) } catch {
                if ContinuousClock.now >= deadline { throw error }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}

/// A public key that may not exist yet (`KeyDirectory.laterKey`): read when first asked for and
/// kept once found. Asked at handshakes only, so a missing file is read again at most once per
/// handshake.
public final class LaterPublicKey: Sendable {
    private let url: URL
    private let known = Mutex<String?>(nil)

    init(url: URL) {
        self.url = url
    }

    /// Whether `publicKey` is this key.
    public func matches(_ publicKey: String) -> Bool {
        known.withLock { known in
            if known == nil { known = try? CurveKeyPair.loadPublicKey(from: url) }
            return known == publicKey
        }
    }
}

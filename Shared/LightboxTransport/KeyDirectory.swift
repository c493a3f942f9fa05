import Foundation

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

    public func keyURL(_ name: String) -> URL { root.appendingPathComponent("keys/\(name).key") }
    public func publicKeyURL(_ name: String) -> URL { root.appendingPathComponent("keys/\(name).pub") }
    public func appKeyURL(_ appID: String) -> URL { root.appendingPathComponent("apps/\(appID).key") }

    public func loadOrCreateKeyPair(_ name: String) throws -> CurveKeyPair {
        try CurveKeyPair.loadOrCreate(at: keyURL(name))
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

import Foundation
import LightboxTransport

/// One-time login secrets for the owner's web surface (lightbox-surface). Whoever can write the
/// data folder is the owner, so a secret is minted by writing its SHA-256 into
/// `DATA/surface/logins/` (0600) — by the surface at start, or by `lightbox user login` — and the
/// surface redeems it by removing that file: a secret works once, and only the owner can make one.
public struct SurfaceLogin: Sendable {
    public let folder: URL

    public init(dataDirectory: URL) {
        folder = dataDirectory.appendingPathComponent("surface")
    }

    var logins: URL { folder.appendingPathComponent("logins") }
    /// Where the surface listens (`127.0.0.1:7710`), written by it at start for `lightbox user login`.
    public var listenFile: URL { folder.appendingPathComponent("listen") }
    public var loginURLFile: URL { folder.appendingPathComponent("login-url") }

    /// Unused secrets kept; minting one more removes the oldest. The surface mints one each time it
    /// opens the sheet for the owner, and an ignored window leaves its secret unused.
    public static let unusedLimit = 32

    /// A new 256-bit secret, stored by its hash only.
    public func mint() throws -> String {
        PrivateDataFolder.restrictNewFiles()
        try FileManager.default.createDirectory(at: logins, withIntermediateDirectories: true)
        removeOldest(keeping: Self.unusedLimit - 1)
        let secret = SecureRandom.token(bytes: 32)
        try Data().write(to: logins.appendingPathComponent(Self.hash(secret)), options: .withoutOverwriting)
        return secret
    }

    private func removeOldest(keeping count: Int) {
        let files = (try? FileManager.default.contentsOfDirectory(at: logins, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        guard files.count > count else { return }
        let newestFirst = files.sorted {
            let first = (try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
            let second = (try? $1.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
            return first > second
        }
        for file in newestFirst.dropFirst(count) { unlink(file.path) }
    }

    /// Whether `secret` was minted and not used yet; redeeming it uses it up (the file's removal is
    /// atomic, so two requests with one secret cannot both get in).
    public func redeem(_ secret: String) -> Bool {
        guard (40...64).contains(secret.count), secret.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }),
              secret.allSatisfy(\.isASCII) else { return false }
        return unlink(logins.appendingPathComponent(Self.hash(secret)).path) == 0
    }

    /// A fresh login address for the surface listening on `listen` (host:port).
    public func mintURL(listen: String) throws -> String {
        "http://\(listen)/login?secret=\(try mint())"
    }

    /// Where the running surface listens, as it wrote it at start.
    public func listenAddress() throws -> String {
        try String(contentsOf: listenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func hash(_ secret: String) -> String {
        SHA256Hasher.hex(Data(secret.utf8))
    }
}

import CSodium
import Crypto
import Foundation

/// SHA-256 over bytes fed in pieces, through swift-crypto (BoringSSL), which uses the CPU's SHA
/// instructions where it has them: every imported file and every stream is hashed, so the hash is
/// on the import's critical path.
public struct SHA256Hasher: Sendable {
    private var state = SHA256()

    public init() {}

    public mutating func update(_ data: Data) {
        state.update(data: data)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        state.update(bufferPointer: bytes)
    }

    /// The digest as lowercase hex.
    public mutating func finalize() -> String {
        state.finalize().lowercaseHex
    }

    public static func hex(_ data: Data) -> String {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Hashes a file in 1 MiB pieces without holding it in memory.
    public static func hex(fileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalize()
    }
}

/// Unguessable random values (libsodium's CSPRNG).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> Data {
        _ = sodium_init()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return data
    }

    /// URL-safe base64 without padding.
    public static func token(bytes count: Int = 32) -> String {
        bytes(count).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

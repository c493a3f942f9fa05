import CSodium
import Foundation

/// SHA-256 over bytes fed in pieces (libsodium).
public struct SHA256Hasher: Sendable {
    private var state = crypto_hash_sha256_state()

    public init() {
        _ = sodium_init()
        crypto_hash_sha256_init(&state)
    }

    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        _ = crypto_hash_sha256_update(&state, bytes.bindMemory(to: UInt8.self).baseAddress, UInt64(bytes.count))
    }

    /// The digest as lowercase hex.
    public mutating func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256_final(&state, &digest)
        return digest.lowercaseHex
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

import CZeroMQ
import Foundation

/// A CURVE key pair in Z85 text (40 characters each), as libzmq takes them.
public struct CurveKeyPair: Codable, Sendable, Hashable {
    public var publicKey: String
    public var secretKey: String

    enum CodingKeys: String, CodingKey {
        case publicKey = "public"
        case secretKey = "secret"
    }

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A new random key pair from libzmq (libsodium underneath).
    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else {
            throw TransportError(.keyFile, "libzmq has no CURVE support (zmq_curve_keypair failed); install a libzmq built with libsodium")
        }
        return CurveKeyPair(publicKey: text(publicKey), secretKey: text(secretKey))
    }

    /// The Z85 text of a 32-byte binary key (as ZAP hands it over).
    public static func z85(_ binary: Data) -> String? {
        guard binary.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let ok = binary.withUnsafeBytes { zmq_z85_encode(&text, $0.bindMemory(to: UInt8.self).baseAddress, 32) } != nil
        return ok ? CurveKeyPair.text(text) : nil
    }

    /// True for 40 characters of the Z85 alphabet that decode to 32 bytes.
    public static func isValidPublicKey(_ text: String) -> Bool {
        binary(text) != nil
    }

    /// The 32 bytes of a Z85 key; nil for anything but 40 characters of the Z85 alphabet.
    static func binary(_ text: String) -> [UInt8]? {
        guard text.utf8.count == 40 else { return nil }
        var binary = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&binary, text) != nil ? binary : nil
    }

    /// A NUL-terminated C buffer as a String.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Files

    /// Reads a key file: `{"public":"…","secret":"…"}`.
    public static func load(from url: URL) throws -> CurveKeyPair {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw TransportError(.keyFile, "cannot read key file \(url.path): \(error.localizedDescription)")
        }
        do { return try JSONDecoder().decode(CurveKeyPair.self, from: data) } catch {
            throw TransportError(.keyFile, "\(url.path) is not a Lightbox key file ({\"public\":…,\"secret\":…})")
        }
    }

    /// Reads the key pair at `url`, or makes one and writes it there (mode 0600) with a `.pub` file
    /// beside it. Two processes racing here end up with the same key: the loser reads the winner's.
    public static func loadOrCreate(at url: URL) throws -> CurveKeyPair {
        if FileManager.default.fileExists(atPath: url.path) { return try load(from: url) }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let keyPair = try generate()
        let temporary = url.appendingPathExtension("tmp-\(getpid())")
        let data = try JSONEncoder().encode(keyPair)
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw TransportError(.keyFile, "cannot write key file \(temporary.path)")
        }
        defer { unlink(temporary.path) }
        if link(temporary.path, url.path) != 0 {
            if errno == EEXIST { return try load(from: url) }
            throw TransportError(.keyFile, "cannot create \(url.path): \(String(cString: strerror(errno)))")
        }
        try writePublicKey(keyPair.publicKey, to: url.deletingPathExtension().appendingPathExtension("pub"))
        return keyPair
    }

    /// Reads a public key file (Z85 text, surrounding white space ignored).
    public static func loadPublicKey(from url: URL) throws -> String {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw TransportError(.keyFile, "cannot read public key \(url.path); has that service been started once with this data directory?")
        }
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isValidPublicKey(key) else { throw TransportError(.keyFile, "\(url.path) does not hold a Z85 CURVE public key") }
        return key
    }

    public static func writePublicKey(_ key: String, to url: URL) throws {
        try Data((key + "\n").utf8).write(to: url, options: .atomic)
        // Private like everything in the data folder, whatever the caller's umask.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}

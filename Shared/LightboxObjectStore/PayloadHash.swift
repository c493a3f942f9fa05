import Crypto

/// What a request's `x-amz-content-sha256` header says about its body, and what the signature covers.
public enum PayloadHash: Sendable, Equatable {
    /// The body's SHA-256, lower-case hex: the store checks the bytes it received against it.
    case sha256(String)
    /// `UNSIGNED-PAYLOAD`: the signature covers the headers only (the transport's own checks guard the body).
    case unsigned

    /// The hash of an empty body, which every GET, HEAD and DELETE signs.
    public static let empty = PayloadHash.sha256(hexDigest(of: []))

    /// The hash of a body held in memory (a small XML document such as a multipart completion).
    public static func of(_ bytes: some Sequence<UInt8>) -> PayloadHash {
        .sha256(hexDigest(of: Array(bytes)))
    }

    /// The value the header carries and the canonical request ends with.
    public var headerValue: String {
        switch self {
        case .sha256(let hex): hex
        case .unsigned: "UNSIGNED-PAYLOAD"
        }
    }

    static func hexDigest(of bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hexString
    }
}

extension Sequence where Element == UInt8 {
    /// Lower-case hex, as Signature V4 writes hashes and signatures.
    var hexString: String {
        var text = ""
        for byte in self {
            text += String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }
        return text
    }
}

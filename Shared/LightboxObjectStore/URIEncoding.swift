/// The percent-encoding Signature V4 prescribes: every byte outside `A-Z a-z 0-9 - . _ ~` as `%XX`
/// with upper-case hex digits, over the UTF-8 bytes.
enum URIEncoding {
    /// Encodes a query name or value (a `/` is encoded too).
    static func component(_ text: String) -> String {
        encode(text, keepingSlash: false)
    }

    /// Encodes an object path: each segment encoded, the `/` between them kept.
    ///
    /// S3 signs the path as sent: it neither collapses `//` nor resolves `.` and `..`,
    /// and encodes it once (other AWS services encode twice and normalize).
    static func path(_ text: String) -> String {
        encode(text, keepingSlash: true)
    }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%"
                encoded.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                encoded.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hexDigits: [Unicode.Scalar] = Array("0123456789ABCDEF".unicodeScalars)
}

/// Bytes as lowercase hex, two digits each, without a format string per byte: token hashes,
/// content hashes and connection ids are made this way on every request.
extension Sequence<UInt8> {
    public var lowercaseHex: String {
        let bytes = Array(self)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = hexDigits[Int(byte >> 4)]
                buffer[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

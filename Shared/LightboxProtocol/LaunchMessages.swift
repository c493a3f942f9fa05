/// `service.hello` (any principal, once per connection, first): the launch — one process of the
/// client — this connection belongs to. Clients make one launch id per process and say it on every
/// connection they open, so the services can tell two connections of one run of an app from two
/// runs. Who the client is still comes only from its CURVE key; the launch groups that key's
/// connections and nothing else.
public struct Hello: Codable, Sendable, Hashable {
    public var launch: String
    public init(launch: String) { self.launch = launch }

    /// The longest launch id: 64 characters.
    public static let maximumLaunchLength = 64

    /// 1–64 ASCII letters, digits, `-` or `_` (a UUID or 32 random hex digits fit).
    public static func isValid(launch: String) -> Bool {
        let bytes = launch.utf8
        return !bytes.isEmpty && bytes.count <= maximumLaunchLength && bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

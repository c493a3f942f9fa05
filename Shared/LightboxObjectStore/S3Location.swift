/// Where objects live: `s3://BUCKET/PREFIX`, keys being `PREFIX` + a name.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public let bucket: String
    /// Empty, or ends with `/`.
    public let prefix: String

    public init(bucket: String, prefix: String = "") {
        self.bucket = bucket
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX`; nil for anything else.
    public init?(url text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst("s3://".count)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty, bucket.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }) else { return nil }
        var prefix = String(rest.dropFirst(bucket.count))
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        self.init(bucket: String(bucket), prefix: prefix)
    }

    /// The key of `name` under this location.
    public func key(_ name: String) -> String { prefix + name }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}

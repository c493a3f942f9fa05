/// A name from an open set that travels as a plain JSON string (error codes, operation names, type
/// identifiers). A struct conforming to this, rather than an enum, lets new names arrive without
/// breaking older decoders or anyone's `switch`.
public protocol WireName: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible where RawValue == String {
    init(rawValue: String)
}

extension WireName {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

import Foundation

/// The one JSON configuration used on the wire: ISO 8601 dates. Keys are in no particular order on
/// the wire (sorting them cost every reply a sort per object); `sortedKeys` is for what people read.
public enum WireCoding {
    public static func makeEncoder(sortedKeys: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Written by `WireJSONEncoder`; what it leaves to JSONEncoder, or cannot encode at all, goes
    /// through JSONEncoder, so the JSON, or the error, is JSONEncoder's either way.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        if let data = try? WireJSONEncoder.encode(value) { return data }
        return try makeEncoder().encode(value)
    }

    /// Plain frames are read by `WireJSONDecoder`, anything else by JSONDecoder; the value, or the
    /// error, is JSONDecoder's either way.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try WireJSONDecoder.decode(type, from: data)
    }
}

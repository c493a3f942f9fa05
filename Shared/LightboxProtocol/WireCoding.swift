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

    /// A value that writes its own JSON (`WireJSONWritable`) is written directly; anything else, or
    /// a value the writer cannot spell as the encoder would, goes through JSONEncoder.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        if let writable = value as? any WireJSONWritable {
            var json = WireJSONWriter()
            do {
                try writable.write(to: &json)
                return Data(json.bytes)
            } catch is WireJSONWriter.Unwritable {}
        }
        return try makeEncoder().encode(value)
    }

    /// Plain frames are read by `WireJSONDecoder`, anything else by JSONDecoder; the value, or the
    /// error, is JSONDecoder's either way.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try WireJSONDecoder.decode(type, from: data)
    }
}

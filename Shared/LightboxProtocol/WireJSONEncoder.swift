import Foundation

/// Encodes a value to wire JSON as `WireCoding.makeEncoder()` does, straight into bytes.
/// JSONEncoder builds a tree of boxed values for every object and only then writes it out, which
/// outweighed everything else the busiest replies did; this writes each value as it is handed
/// over. Which fields a value has, and their names, come from its own `encode(to:)` (synthesized
/// from its coding keys), so no message's fields are listed twice. Whatever this does not spell
/// as JSONEncoder would (see `Encoding.isWritable`) throws `WireJSONWriter.Unwritable`, and the
/// caller encodes with JSONEncoder instead. `WireJSONEncoderTests` holds every wire type to
/// JSONEncoder's JSON of the same value.
public enum WireJSONEncoder {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = Encoding()
        try encoder.write(value)
        guard encoder.isWritable else { throw WireJSONWriter.Unwritable() }
        return encoder.json.pointee.data
    }
}

extension WireJSONEncoder {
    /// The `Encoder` every value of one encoding is handed. Containers write as they are used; the
    /// value's container is closed once its `encode(to:)` returns.
    final class Encoding: Encoder {
        /// The writer, behind a pointer: a class's own stored properties are checked for exclusive
        /// access at run time on every use, and every member and element uses it several times.
        let json: UnsafeMutablePointer<WireJSONWriter>
        /// What the value being written has asked for so far.
        var state: State {
            get { states.pointee }
            set { states.pointee = newValue }
        }
        private let states: UnsafeMutablePointer<State>
        /// False once a value asked for what is left to JSONEncoder: a nested container, a super
        /// encoder, or a second container for one value (JSONEncoder merges those).
        var isWritable = true

        init() {
            json = .allocate(capacity: 1)
            json.initialize(to: WireJSONWriter())
            states = .allocate(capacity: 1)
            states.initialize(to: .empty)
        }

        deinit {
            json.deinitialize(count: 1)
            json.deallocate()
            states.deallocate()
        }

        /// Kept for the value rather than in its container, so that every copy of a container
        /// knows whether a comma goes first.
        enum State { case empty, emptyObject, object, emptyArray, array, single, written }

        // Not kept: only JSONEncoder's errors are ever shown (the caller encodes again with it).
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func write<T: Encodable>(_ value: T) throws {
            // The commonest values without their `encode(to:)`, and the ones JSONEncoder spells
            // itself rather than as their `encode(to:)` says.
            if T.self == String.self { return json.pointee.string(unsafeBitCast(value, to: String.self)) }
            if T.self == Int.self { return json.pointee.integer(unsafeBitCast(value, to: Int.self)) }
            if T.self == Int64.self { return json.pointee.integer(unsafeBitCast(value, to: Int64.self)) }
            if T.self == Double.self { return try json.pointee.number(unsafeBitCast(value, to: Double.self)) }
            if T.self == Bool.self { return json.pointee.bool(unsafeBitCast(value, to: Bool.self)) }
            if T.self == Date.self { return try json.pointee.date(unsafeBitCast(value, to: Date.self)) }
            // Free-form JSON (image properties), written as it stands.
            if T.self == JSONValue.self { return try json.pointee.value(unsafeBitCast(value, to: JSONValue.self)) }
            if T.self == [String: JSONValue].self { return try json.pointee.object(unsafeBitCast(value, to: [String: JSONValue].self)) }
            if T.self == Data.self || T.self == URL.self || T.self == Decimal.self || T.self == Float.self {
                throw WireJSONWriter.Unwritable()
            }
            let outer = state
            state = .empty
            try value.encode(to: self)
            switch state {
            case .emptyObject, .object: json.pointee.punctuation(UInt8(ascii: "}"))
            case .emptyArray, .array: json.pointee.punctuation(UInt8(ascii: "]"))
            case .written: break
            // Nothing written: JSONEncoder says what that makes.
            case .empty, .single: throw WireJSONWriter.Unwritable()
            }
            state = outer
        }

        /// A container this encoder does not write: marks the encoding for JSONEncoder and hands out
        /// a throwaway encoder's, so the value can finish.
        func leaveToJSONEncoder() -> Encoding {
            isWritable = false
            return Encoding()
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            guard state == .empty else { return leaveToJSONEncoder().container(keyedBy: type) }
            state = .emptyObject
            json.pointee.punctuation(UInt8(ascii: "{"))
            return KeyedEncodingContainer(ObjectContainer(encoder: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            guard state == .empty else { return leaveToJSONEncoder().unkeyedContainer() }
            state = .emptyArray
            json.pointee.punctuation(UInt8(ascii: "["))
            return ArrayContainer(encoder: self)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            guard state == .empty else { return leaveToJSONEncoder().singleValueContainer() }
            state = .single
            return ValueContainer(encoder: self)
        }
    }
}

import Foundation

/// Decodes a wire frame exactly as `WireCoding.makeDecoder()` does, but reads plain frames itself.
/// JSONDecoder's time on a small request is mostly fixed work around the scan (its containers and
/// type metadata), which a plain frame does not need.
///
/// The frame is parsed once (`WireJSONDocument`) and decoded from there. Whatever this decoder is
/// not sure to read as JSONDecoder would, it gives up on, and JSONDecoder decodes the frame: JSON
/// that is not plain, numbers JSONDecoder reads by its own rules (`1.0` as an Int), the types it
/// special-cases (Date, Data, URL, Decimal), `superDecoder`, and any error at all, so that every
/// error thrown, and its words, are JSONDecoder's. `WireJSONDecoderTests` compares the two.
public enum WireJSONDecoder {
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let value = fastDecode(type, from: data) { return value }
        return try WireCoding.makeDecoder().decode(type, from: data)
    }

    /// The value when this decoder reads the frame to the end without giving up; nil otherwise.
    static func fastDecode<T: Decodable>(_ type: T.Type, from data: Data) -> T? {
        guard let document = WireJSONDocument(data),
              let value = try? ValueDecoder(document: document, node: 0).decode(type),
              !document.gaveUp else { return nil }
        return value
    }

    /// The member `name` of the frame's top-level object, when this decoder reads the frame to the
    /// end without giving up and the member is there and not null; nil otherwise. A request's body
    /// is read this way, without decoding a generic wrapper around it (whose metadata and container
    /// would be work on top of the body's own).
    static func fastDecode<T: Decodable>(_ type: T.Type, member name: String, from data: Data) -> T? {
        guard let document = WireJSONDocument(data), document.nodes.first?.kind == .object,
              let node = document.member(named: name, in: 0), document.nodes[node].kind != .null,
              let value = try? ValueDecoder(document: document, node: node).decode(type),
              !document.gaveUp else { return nil }
        return value
    }

    /// What JSONDecoder's "The given data was not valid JSON" meant, when the frame is valid JSON
    /// and that was a number that does not fit its member's type (`10.5` or `1e30` for an Int,
    /// `2^63` for an Int64, `1e999` for a Double): that error, with the member's coding path and
    /// a sentence, which JSONDecoder on Linux gives neither of. Nil when it is not that.
    static func numberMisfit<T: Decodable>(_ type: T.Type, member name: String, in data: Data) -> DecodingError? {
        guard let document = WireJSONDocument(data), document.nodes.first?.kind == .object,
              let node = document.member(named: name, in: 0) else { return nil }
        _ = try? ValueDecoder(document: document, node: node).decode(type)
        guard let (misfit, expected) = document.misfit else { return nil }
        let text = String(decoding: document.bytes[document.nodes[misfit].text], as: UTF8.self)
        let kind = expected is any BinaryFloatingPoint.Type ? "a number of" : "a whole number that fits"
        return .dataCorrupted(.init(codingPath: document.codingPath(to: misfit),
                                    debugDescription: "\(text) is not \(kind) \(expected)"))
    }

    /// Thrown where JSONDecoder may decide otherwise; the frame then goes to JSONDecoder.
    struct GiveUp: Error {}

    /// A member's key, or an element's index, in a coding path, as JSONDecoder spells them.
    struct PathKey: CodingKey {
        let stringValue: String
        let intValue: Int?

        init(stringValue: String) {
            self.stringValue = stringValue
            intValue = nil
        }

        init(intValue: Int) {
            stringValue = String(intValue)
            self.intValue = intValue
        }

        init(index: Int) {
            stringValue = "Index \(index)"
            intValue = index
        }
    }
}

// MARK: One value

extension WireJSONDecoder {
    /// The decoder of one node, and its single value container (as JSONDecoder's is itself).
    struct ValueDecoder: Decoder, SingleValueDecodingContainer {
        let document: WireJSONDocument
        let node: Int

        var codingPath: [any CodingKey] { document.codingPath(to: node) }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard document.nodes[node].kind == .object else { throw document.giveUp() }
            return KeyedDecodingContainer(KeyedContainer<Key>(document: document, object: node))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard document.nodes[node].kind == .array else { throw document.giveUp() }
            return UnkeyedContainer(document: document, array: node)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { document.nodes[node].kind == .null }

        func decode(_: Bool.Type) throws -> Bool {
            switch document.nodes[node].kind {
            case .true: return true
            case .false: return false
            default: throw document.giveUp()
            }
        }

        func decode(_: String.Type) throws -> String { try read(document.string(node)) }
        func decode(_ type: Double.Type) throws -> Double { try number(document.floatingPoint(node, as: type)) }
        func decode(_ type: Float.Type) throws -> Float { try number(document.floatingPoint(node, as: type)) }
        func decode(_ type: Int.Type) throws -> Int { try number(document.integer(node, as: type)) }
        func decode(_ type: Int8.Type) throws -> Int8 { try number(document.integer(node, as: type)) }
        func decode(_ type: Int16.Type) throws -> Int16 { try number(document.integer(node, as: type)) }
        func decode(_ type: Int32.Type) throws -> Int32 { try number(document.integer(node, as: type)) }
        func decode(_ type: Int64.Type) throws -> Int64 { try number(document.integer(node, as: type)) }
        func decode(_ type: UInt.Type) throws -> UInt { try number(document.integer(node, as: type)) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try number(document.integer(node, as: type)) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try number(document.integer(node, as: type)) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try number(document.integer(node, as: type)) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try number(document.integer(node, as: type)) }

        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        func decode(_: Int128.Type) throws -> Int128 { throw document.giveUp() }

        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        func decode(_: UInt128.Type) throws -> UInt128 { throw document.giveUp() }

        func decode<T: Decodable>(_: T.Type) throws -> T {
            // JSONDecoder reads these by its own strategies (ISO 8601 dates, Base64 data …), also
            // inside arrays, dictionaries and optionals, which all come through here.
            guard T.self != Date.self, T.self != Data.self, T.self != URL.self, T.self != Decimal.self else {
                throw document.giveUp()
            }
            if T.self == JSONValue.self, let value = try jsonValue() as? T { return value }
            // An object or array of them (image properties) whole, not through Dictionary's and
            // Array's generic decoding, which asked for each member by name.
            if T.self == [String: JSONValue].self {
                guard case .object(let members) = try jsonValue(), let value = members as? T else { throw document.giveUp() }
                return value
            }
            if T.self == [JSONValue].self {
                guard case .array(let elements) = try jsonValue(), let value = elements as? T else { throw document.giveUp() }
                return value
            }
            return try T(from: self)
        }

        /// The node as `JSONValue.init(from:)` reads it through JSONDecoder. Read here because that
        /// initializer probes types with `try?`, which would give up the whole frame (image
        /// properties, stored with every asset, are read on every describe and image request).
        func jsonValue() throws -> JSONValue {
            let nodes = document.nodes
            switch nodes[node].kind {
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .number: return .number(try decode(Double.self))
            case .string: return .string(try decode(String.self))
            case .array:
                var values: [JSONValue] = []
                values.reserveCapacity(nodes[node].count)
                var element = node + 1
                for _ in 0..<nodes[node].count {
                    values.append(try ValueDecoder(document: document, node: element).jsonValue())
                    element = nodes[element].next
                }
                return .array(values)
            case .object:
                var members: [String: JSONValue] = [:]
                members.reserveCapacity(nodes[node].count)
                var key = node + 1
                for _ in 0..<nodes[node].count {
                    members[document.key(key)] = try ValueDecoder(document: document, node: key + 1).jsonValue()
                    key = nodes[key + 1].next
                }
                return .object(members)
            }
        }

        private func read<Value>(_ value: Value?) throws -> Value {
            guard let value else { throw document.giveUp() }
            return value
        }

        /// As `read`, noting a number that does not fit `Value` (`WireJSONDocument.misfit`).
        private func number<Value>(_ value: Value?) throws -> Value {
            if value == nil { document.noteMisfit(node, as: Value.self) }
            return try read(value)
        }
    }
}

// MARK: Objects

extension WireJSONDecoder {
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let document: WireJSONDocument
        let object: Int

        var codingPath: [any CodingKey] { document.codingPath(to: object) }

        var allKeys: [Key] {
            var keys: [Key] = []
            var key = object + 1
            for _ in 0..<document.nodes[object].count {
                if let codingKey = Key(stringValue: document.key(key)) { keys.append(codingKey) }
                key = document.nodes[key + 1].next
            }
            return keys
        }

        func contains(_ key: Key) -> Bool { document.member(named: key.stringValue, in: object) != nil }

        /// The decoder of `key`'s value; a missing key gives up, as JSONDecoder throws then.
        private func value(_ key: Key) throws -> ValueDecoder {
            guard let node = document.member(named: key.stringValue, in: object) else { throw document.giveUp() }
            return ValueDecoder(document: document, node: node)
        }

        /// The decoder of `key`'s value, nil when it is missing or null (JSONDecoder's `decodeIfPresent`).
        private func valueIfPresent(_ key: Key) -> ValueDecoder? {
            guard let node = document.member(named: key.stringValue, in: object), document.nodes[node].kind != .null else { return nil }
            return ValueDecoder(document: document, node: node)
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key).decode(type) }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try valueIfPresent(key)?.decode(type) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try valueIfPresent(key)?.decode(type) }

        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try value(key).decode(type) }

        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try value(key).decode(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try value(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try value(key).unkeyedContainer() }
        func superDecoder() throws -> any Decoder { throw document.giveUp() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw document.giveUp() }
    }
}

// MARK: Arrays

extension WireJSONDecoder {
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let document: WireJSONDocument
        let array: Int
        private(set) var currentIndex = 0
        /// The node of the element at `currentIndex`.
        private var element: Int

        init(document: WireJSONDocument, array: Int) {
            self.document = document
            self.array = array
            element = array + 1
        }

        var codingPath: [any CodingKey] { document.codingPath(to: array) }
        var count: Int? { document.nodes[array].count }
        var isAtEnd: Bool { currentIndex >= document.nodes[array].count }

        /// Decodes the next element and moves past it; as JSONDecoder, not past one that fails.
        private mutating func next<Value>(_ decode: (ValueDecoder) throws -> Value) throws -> Value {
            guard !isAtEnd else { throw document.giveUp() }
            let value = try decode(ValueDecoder(document: document, node: element))
            currentIndex += 1
            element = document.nodes[element].next
            return value
        }

        /// As `next`, but a null element reads as nil (JSONDecoder's `decodeIfPresent`).
        private mutating func nextIfPresent<Value>(_ decode: (ValueDecoder) throws -> Value) throws -> Value? {
            try decodeNil() ? nil : next(decode)
        }

        /// Moves past the next element only when it is null, as the protocol says.
        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw document.giveUp() }
            guard document.nodes[element].kind == .null else { return false }
            return try next { _ in true }
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decode(type) } }
        mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decode(type) } }
        mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decode(type) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decode(type) } }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decode(type) } }

        mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try nextIfPresent { try $0.decode(type) } }
        mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? { try nextIfPresent { try $0.decode(type) } }

        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        mutating func decode(_ type: Int128.Type) throws -> Int128 { try next { try $0.decode(type) } }

        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next { try $0.decode(type) } }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next { try $0.container(keyedBy: type) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next { try $0.unkeyedContainer() } }
        mutating func superDecoder() throws -> any Decoder { throw document.giveUp() }
    }
}

import Foundation

// The three containers `WireJSONEncoder.Encoding` hands out. Each writes its members or elements
// as they come, a comma before all but the first; nested containers, super encoders and Floats
// are left to JSONEncoder (no wire type asks for them).

extension WireJSONEncoder {
    struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: Encoding

        var codingPath: [any CodingKey] { [] }

        /// Starts the member named by `key`; the value written next belongs to it.
        private func start(_ key: Key) {
            if encoder.state == .object {
                encoder.json.pointee.punctuation(UInt8(ascii: ","))
            } else {
                encoder.state = .object
            }
            encoder.json.pointee.string(key.stringValue)
            encoder.json.pointee.punctuation(UInt8(ascii: ":"))
        }

        mutating func encodeNil(forKey key: Key) throws { start(key); encoder.json.pointee.null() }
        mutating func encode(_ value: Bool, forKey key: Key) throws { start(key); encoder.json.pointee.bool(value) }
        mutating func encode(_ value: String, forKey key: Key) throws { start(key); encoder.json.pointee.string(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { start(key); try encoder.json.pointee.number(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { throw WireJSONWriter.Unwritable() }
        mutating func encode(_ value: Int, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { start(key); encoder.json.pointee.integer(value) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { start(key); try encoder.write(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            encoder.leaveToJSONEncoder().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            encoder.leaveToJSONEncoder().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { encoder.leaveToJSONEncoder() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.leaveToJSONEncoder() }
    }

    struct ArrayContainer: UnkeyedEncodingContainer {
        let encoder: Encoding
        private(set) var count = 0

        init(encoder: Encoding) {
            self.encoder = encoder
        }

        var codingPath: [any CodingKey] { [] }

        /// Starts the next element.
        private mutating func start() {
            if encoder.state == .array {
                encoder.json.pointee.punctuation(UInt8(ascii: ","))
            } else {
                encoder.state = .array
            }
            count += 1
        }

        mutating func encodeNil() throws { start(); encoder.json.pointee.null() }
        mutating func encode(_ value: Bool) throws { start(); encoder.json.pointee.bool(value) }
        mutating func encode(_ value: String) throws { start(); encoder.json.pointee.string(value) }
        mutating func encode(_ value: Double) throws { start(); try encoder.json.pointee.number(value) }
        mutating func encode(_ value: Float) throws { throw WireJSONWriter.Unwritable() }
        mutating func encode(_ value: Int) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int8) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int16) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int32) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: Int64) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt8) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt16) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt32) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode(_ value: UInt64) throws { start(); encoder.json.pointee.integer(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { start(); try encoder.write(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            encoder.leaveToJSONEncoder().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            encoder.leaveToJSONEncoder().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { encoder.leaveToJSONEncoder() }
    }

    struct ValueContainer: SingleValueEncodingContainer {
        let encoder: Encoding

        var codingPath: [any CodingKey] { [] }

        /// Whether the one value may be written now: not twice, and not once the value has asked
        /// for another container.
        private func start() -> Bool {
            guard encoder.state == .single else {
                encoder.isWritable = false
                return false
            }
            encoder.state = .written
            return true
        }

        mutating func encodeNil() throws { if start() { encoder.json.pointee.null() } }
        mutating func encode(_ value: Bool) throws { if start() { encoder.json.pointee.bool(value) } }
        mutating func encode(_ value: String) throws { if start() { encoder.json.pointee.string(value) } }
        mutating func encode(_ value: Double) throws { if start() { try encoder.json.pointee.number(value) } }
        mutating func encode(_ value: Float) throws { throw WireJSONWriter.Unwritable() }
        mutating func encode(_ value: Int) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: Int8) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: Int16) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: Int32) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: Int64) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: UInt) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: UInt8) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: UInt16) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: UInt32) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode(_ value: UInt64) throws { if start() { encoder.json.pointee.integer(value) } }
        mutating func encode<T: Encodable>(_ value: T) throws { if start() { try encoder.write(value) } }
    }
}

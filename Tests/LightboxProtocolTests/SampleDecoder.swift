import Foundation
import LightboxProtocol

/// Makes a value of any wire type by answering its own `init(from:)` with samples, so that a test
/// can hold every type to something without a hand-made value per type: each field, at every
/// depth, takes the next of a list of awkward strings, numbers at their bounds, dates, arrays,
/// dictionaries and free-form JSON. `variant` picks the mix: 0 fills every optional, 1 leaves
/// every optional out and every array and dictionary empty, the others mix.
final class SampleSource {
    let variant: Int
    private var counter: Int

    init(variant: Int) {
        self.variant = variant
        counter = variant * 7
    }

    static let strings = [
        "", "IMG_0001.JPG", "a/b", "quote \" and backslash \\", "tab\tnew\nline\rfeed\u{0C}back\u{08}", "\u{01}\u{1F}\u{7F}",
        "été 東京 🏔️", "\u{2028}\u{2029}", "ends with \\", "exactly8", "seven+1\"", "0123456789abcdef\u{00}",
        "a longer value of more than a few words of eight bytes, all plain",
    ]
    /// Dictionary keys: escapes and non-ASCII in names too.
    static let keys = ["PixelWidth", "", "{Exif}", "quote \" key\n", "東京"]
    static let integers: [Int64] = [0, 1, -1, 9, 10, 4032, -99, 1_000_000_007, .max, .min, .max - 1, .min + 1]
    static let doubles: [Double] = [0, 1, -2.5, 12.345678901234, 1e-7, 1e21, 3_600_000.25, .ulpOfOne, 1e15, 999_999_999_999_999,
                                    4_503_599_627_370_496, 9_007_199_254_740_994, 123_456_789.125, -0.0, 1e300, -1e-300]
    /// Whole seconds and fractions, before 1970, from the Gregorian calendar's first day to the
    /// last second of year 9999 (dates outside are left to JSONEncoder).
    static let dates = [0, 1.7, -1.7, 1e9 + 0.999, 1_795_000_000, -2_208_988_800.5, 253_402_300_799, -12_219_292_800]
        .map(Date.init(timeIntervalSince1970:))
    static let json: [JSONValue] = [
        .null, .bool(true), .bool(false), .number(6), .number(72.5), .number(-1e-7), .number(1e21), .string("tab\tvalue \u{01} 東京"),
        .array([]), .array([.number(100), .string("a/b"), .null]), .object([:]),
        .object(["{Exif}": .object(["ExposureTime": .number(0.008), "ISOSpeedRatings": .array([.number(100), .number(200)])]),
                 "quote \" key\n": .string("x"), "": .bool(false)]),
    ]
    /// Types whose values cannot be made from samples (enums that list no cases, a filter checked
    /// against its names): their values.
    static let fixed: [ObjectIdentifier: [any Sendable]] = [
        ObjectIdentifier(ReplyStatus.self): [ReplyStatus]([.ok, .error, .progress, .chunk, .event]),
        ObjectIdentifier(OwnerPrompt.Kind.self): [OwnerPrompt.Kind]([.authorization, .limitedLibrary, .deleteAssets]),
        ObjectIdentifier(LibraryScope.self): [LibraryScope]([.all, .selection, .none]),
        ObjectIdentifier(DeliveryAnswer.Status.self): [DeliveryAnswer.Status]([.ok, .error]),
        ObjectIdentifier(AssetQuery.Sort.self): [AssetQuery.Sort]([.newestFirst, .oldestFirst]),
        ObjectIdentifier(ImageContentMode.self): [ImageContentMode]([.fit, .fill]),
        ObjectIdentifier(ImageDeliveryMode.self): [ImageDeliveryMode]([.opportunistic, .highQualityFormat, .fastFormat]),
        ObjectIdentifier(ImageVersion.self): [ImageVersion]([.current, .original]),
        ObjectIdentifier(VideoDeliveryMode.self): [VideoDeliveryMode]([.automatic, .fastFormat, .mediumQualityFormat, .highQualityFormat]),
        ObjectIdentifier(MediaType.self): [MediaType]([.image, .video]),
        ObjectIdentifier(PickerConfiguration.Selection.self): [PickerConfiguration.Selection]([.default, .ordered]),
        ObjectIdentifier(PickerConfiguration.RepresentationMode.self): [PickerConfiguration.RepresentationMode]([.automatic, .current, .compatible]),
        ObjectIdentifier(PickerFilter.self): [PickerFilter]([.images, .any([.images, .videos]), .all([.livePhotos, .not(.screenshots)]),
                                                            .not(.videos), .animatedImages]),
        ObjectIdentifier(JSONValue.self): json,
        // Its data is base64 on the wire, which a sample string is not.
        ObjectIdentifier(AdjustmentData.self): [AdjustmentData(format: "com.example.darkroom", version: "1.0", data: Data("{\"exposure\":0.5}".utf8)),
                                               AdjustmentData(format: "", version: "été 東京 🏔️", data: Data())],
    ]

    /// The next of `count` choices.
    func next(_ count: Int) -> Int {
        counter += 1
        return counter % count
    }

    var fillsOptional: Bool { variant == 0 || (variant != 1 && next(3) != 0) }
    var elementCount: Int { variant == 1 ? 0 : 1 + next(3) }

    func make<T: Decodable>(_ type: T.Type, at codingPath: [any CodingKey]) throws -> T {
        if let values = Self.fixed[ObjectIdentifier(type)] { return values[next(values.count)] as! T }
        if let cases = type as? any CaseIterable.Type { return anyCase(of: cases) as! T }
        if T.self == String.self { return Self.strings[next(Self.strings.count)] as! T }
        if T.self == Bool.self { return (next(2) == 0) as! T }
        if T.self == Date.self { return Self.dates[next(Self.dates.count)] as! T }
        if let integer = type as? any FixedWidthInteger.Type { return anyInteger(of: integer) as! T }
        if T.self == Double.self { return Self.doubles[next(Self.doubles.count)] as! T }
        if T.self == Float.self { return Float(Self.doubles[next(Self.doubles.count)]) as! T }
        return try T(from: SampleDecoder(source: self, codingPath: codingPath))
    }

    private func anyCase<C: CaseIterable>(of type: C.Type) -> C {
        let cases = Array(type.allCases)
        return cases[next(cases.count)]
    }

    private func anyInteger<I: FixedWidthInteger>(of type: I.Type) -> I {
        I(truncatingIfNeeded: Self.integers[next(Self.integers.count)])
    }
}

/// The `Decoder` each value is made through (see `SampleSource`).
struct SampleDecoder: Decoder {
    let source: SampleSource
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed(source: source, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(source: source, codingPath: codingPath, count: source.elementCount)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(source: source, codingPath: codingPath)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let source: SampleSource
        let codingPath: [any CodingKey]

        /// Read only by dictionaries: some of the sample keys.
        var allKeys: [Key] { SampleSource.keys.prefix(source.elementCount).compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { source.fillsOptional }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try source.make(type, at: codingPath + [key]) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try source.make(type, at: codingPath + [key]) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try SampleDecoder(source: source, codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try SampleDecoder(source: source, codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { SampleDecoder(source: source, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { SampleDecoder(source: source, codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let source: SampleSource
        let codingPath: [any CodingKey]
        let count: Int?
        private(set) var currentIndex = 0

        init(source: SampleSource, codingPath: [any CodingKey], count: Int) {
            self.source = source
            self.codingPath = codingPath
            self.count = count
        }

        var isAtEnd: Bool { currentIndex >= count ?? 0 }
        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(type) }

        private mutating func element<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try source.make(type, at: codingPath)
        }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type) }
        mutating func decode(_ type: String.Type) throws -> String { try element(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try element(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try element(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try element(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try element(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try element(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try element(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try element(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try element(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try element(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try element(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try element(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try element(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            currentIndex += 1
            return try SampleDecoder(source: source, codingPath: codingPath).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return try SampleDecoder(source: source, codingPath: codingPath).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { SampleDecoder(source: source, codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        let source: SampleSource
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try source.make(type, at: codingPath) }
        func decode(_ type: Bool.Type) throws -> Bool { try source.make(type, at: codingPath) }
        func decode(_ type: String.Type) throws -> String { try source.make(type, at: codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try source.make(type, at: codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try source.make(type, at: codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try source.make(type, at: codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try source.make(type, at: codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try source.make(type, at: codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try source.make(type, at: codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try source.make(type, at: codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try source.make(type, at: codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try source.make(type, at: codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try source.make(type, at: codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try source.make(type, at: codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try source.make(type, at: codingPath) }
    }
}

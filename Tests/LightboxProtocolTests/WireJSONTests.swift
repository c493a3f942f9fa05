import Foundation
import LightboxProtocol
import Testing

/// The replies apps ask for most, written by `WireJSONEncoder`, must say exactly what JSONEncoder
/// says of the same value, and what it writes must decode back to it.
@Suite struct WireJSONTests {
    /// The writer's bytes next to JSONEncoder's bytes of the same value.
    func bothEncodings<T: Encodable>(_ value: T) throws -> (written: Data, encoded: Data) {
        (try WireJSONEncoder.encode(value), try WireCoding.makeEncoder().encode(value))
    }

    func expectSameJSON<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (written, encoded) = try bothEncodings(value)
        #expect(try WireCoding.decode(JSONValue.self, from: written) == WireCoding.decode(JSONValue.self, from: encoded),
                "\(String(decoding: written, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(try WireCoding.decode(T.self, from: written) == WireCoding.decode(T.self, from: encoded), sourceLocation: sourceLocation)
    }

    static let awkwardStrings = ["", "IMG_0001.JPG", "a/b", "quote \" and backslash \\", "tab\tnew\nline\rfeed\u{0C}back\u{08}",
                                 "\u{01}\u{1F}\u{7F}", "été 東京 🏔️", "\u{2028}\u{2029}", "ends with \\"]

    static func summary(_ index: Int, name: String, duration: Double?, date: Date) -> AssetSummary {
        AssetSummary(identifier: "ID-\(index)/L0/001", fileName: name, type: index.isMultiple(of: 2) ? .jpeg : UTType("public.mpeg-4"),
                     mediaType: index.isMultiple(of: 2) ? .image : .video,
                     subtypes: Array(MediaSubtype.allCases.prefix(index % 4)),
                     pixelWidth: index.isMultiple(of: 3) ? nil : 4032 + index, pixelHeight: index.isMultiple(of: 3) ? nil : -index,
                     duration: duration, fileSize: Int64.max - Int64(index), creationDate: date, isInCloud: index.isMultiple(of: 5))
    }

    @Test("Asset pages are written as JSONEncoder writes them, whatever their names, numbers and dates")
    func assetPages() throws {
        let durations: [Double?] = [nil, 0, 1, -2.5, 12.345678901234, 1e-7, 1e21, 3_600_000.25, Double.ulpOfOne]
        let dates = [0, 1.7, -1.7, 1e9 + 0.999, 1_795_000_000, -2_208_988_800.5, 253_402_300_799].map(Date.init(timeIntervalSince1970:))
        var assets: [AssetSummary] = []
        for (index, name) in Self.awkwardStrings.enumerated() {
            for (offset, duration) in durations.enumerated() {
                assets.append(Self.summary(index * 10 + offset, name: name, duration: duration, date: dates[(index + offset) % dates.count]))
            }
        }
        for asset in assets { try expectSameJSON(asset) }
        try expectSameJSON(FetchAssetsResponse(assets: assets, total: 7, next: "cursor/1"))
        try expectSameJSON(FetchAssetsResponse(assets: [], total: 0))
        try expectSameJSON(ListAssetsResponse(assets: Array(assets.prefix(50)), next: nil))
        try expectSameJSON(ReplyEnvelope(id: "req \"1\"", status: .ok, body: ListAssetsResponse(assets: assets, next: "n")))
    }

    @Test("Statuses, identities and image results are written as JSONEncoder writes them")
    func smallReplies() throws {
        for level in [nil] + AccessLevel.allCases.map(Optional.some) {
            for status in AuthorizationStatus.allCases {
                try expectSameJSON(ReplyEnvelope(id: "s", status: .ok, body: StatusResponse(level: level, status: status)))
            }
        }
        try expectSameJSON(ReplyEnvelope(id: "p", status: .ok, body: ServiceIdentity(service: "lightbox-picker", principal: "app:é/\"x\"")))
        try expectSameJSON(ImageResultInfo())
        try expectSameJSON(ImageResultInfo(isDegraded: true, isInCloud: true, isCancelled: true, type: .jpeg, pixelWidth: 128, pixelHeight: 96))
    }

    /// A property dictionary shaped like ImageIO's, with every kind of JSON value and awkward keys.
    static let imageProperties: [String: JSONValue] = [
        "Orientation": .number(6), "DPIWidth": .number(72.5), "HasAlpha": .bool(false), "ProfileName": .null,
        "{Exif}": .object(["DateTimeOriginal": .string("2024:05:01 10:00:00"), "ExposureTime": .number(0.008),
                           "ISOSpeedRatings": .array([.number(100), .number(200)]), "Flash": .bool(true)]),
        "{GPS}": .object(["Latitude": .number(48.8584), "LatitudeRef": .string("N"), "Empty": .object([:]), "None": .array([])]),
        "quote \" key\n": .string("tab\tvalue \u{01} 東京"), "": .number(-1e-7),
    ]

    @Test("Descriptions and property dictionaries are written as JSONEncoder writes them")
    func descriptions() throws {
        let full = ImageProperties(pixelWidth: 4032, pixelHeight: 3024, isAnimated: false, frameCount: 1, duration: 2.5,
                                   creationDate: Date(timeIntervalSince1970: 1_700_000_000.25))
        try expectSameJSON(ProviderDescription(registeredTypeIdentifiers: [.jpeg, UTType("public.heic")], suggestedName: "IMG \"1\"",
                                               fileSize: 123_456, properties: full, imageProperties: Self.imageProperties))
        try expectSameJSON(ProviderDescription(registeredTypeIdentifiers: [], suggestedName: nil, fileSize: 0, properties: ImageProperties()))
        try expectSameJSON(ImagePropertiesResponse(asset: "ID-1/L0/001", properties: Self.imageProperties))
        try expectSameJSON(ImagePropertiesResponse(asset: "ID-2/L0/001", properties: [:]))
        for value in Self.imageProperties.values { try expectSameJSON(value) }
    }

    @Test("Audit batches the picker sends auth are written as JSONEncoder writes them")
    func auditBatches() throws {
        let entries = Self.awkwardStrings.enumerated().map { index, text in
            AuditEntry(id: index.isMultiple(of: 2) ? Int64(index) : nil, app: "app-\(text)", operation: "fetch", assetCount: index,
                       outcome: text, at: Date(timeIntervalSince1970: 1_795_000_000.5 + Double(index)),
                       bytes: index.isMultiple(of: 3) ? nil : Int64(index) << 40, asset: index.isMultiple(of: 4) ? nil : "ID-\(index)/L0/001")
        }
        try expectSameJSON(RequestEnvelope(id: "audit-1", op: .recordAudit, body: AuditRecordRequest(entries: entries)))
        try expectSameJSON(RequestEnvelope(id: "audit-2", op: .recordAudit, body: AuditRecordRequest(entries: [])))
    }

    @Test("Integers are written as JSONEncoder writes them, at their bounds too")
    func integers() throws {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_000_000_007, Int64.max, Int64.min, Int64.min + 1, Int64.max - 1]
        var generator = SystemRandomNumberGenerator()
        values += (0..<200).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int64.random(in: 0...62, using: &generator) }
        for value in values {
            var json = WireJSONWriter()
            json.integer(value)
            #expect(String(decoding: json.bytes, as: UTF8.self) == String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
        }
        var unsigned = WireJSONWriter()
        unsigned.integer(UInt64.max)
        #expect(String(decoding: unsigned.bytes, as: UTF8.self) == "18446744073709551615")
    }

    @Test("What the writer cannot spell as JSONEncoder would goes through JSONEncoder")
    func unwritableValuesFallBack() throws {
        let farFuture = Self.summary(1, name: "x", duration: nil, date: Date(timeIntervalSince1970: 253_402_300_805))
        #expect(throws: WireJSONWriter.Unwritable.self) { try WireJSONEncoder.encode(farFuture) }
        // Year 10000: WireCoding falls back to the encoder and says what it says.
        #expect(try WireCoding.decode(JSONValue.self, from: WireCoding.encode(farFuture))
                == WireCoding.decode(JSONValue.self, from: WireCoding.makeEncoder().encode(farFuture)))
        #expect(try WireCoding.decode(AssetSummary.self, from: WireCoding.encode(farFuture)).creationDate == farFuture.creationDate)
        let infinite = Self.summary(2, name: "x", duration: .infinity, date: Date())
        #expect(throws: EncodingError.self) { try WireCoding.encode(infinite) }
    }
}

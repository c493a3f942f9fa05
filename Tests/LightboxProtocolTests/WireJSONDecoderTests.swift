import Foundation
import Testing
@testable import LightboxProtocol

/// `WireJSONDecoder` against JSONDecoder: on every frame the same value, or the same error (it is
/// JSONDecoder's own then); and it reads the frames clients send itself rather than always giving up.
@Suite struct WireJSONDecoderTests {
    // MARK: Comparing

    /// Both decoders' outcomes on `frame`: values compared by `same`, errors by their words.
    func expectAgreement<T: Decodable>(_ type: T.Type, _ frame: Data, same: (T, T) -> Bool,
                                       sameError: (any Error, any Error) -> Bool = { "\($0)" == "\($1)" },
                                       sourceLocation: SourceLocation = #_sourceLocation) {
        let wire = Result { try WireJSONDecoder.decode(type, from: frame) }
        let foundation = Result { try WireCoding.makeDecoder().decode(type, from: frame) }
        let text = String(decoding: frame, as: UTF8.self)
        switch (wire, foundation) {
        case (.success(let read), .success(let expected)):
            #expect(same(read, expected), "\(T.self) from \(text): \(read), JSONDecoder \(expected)", sourceLocation: sourceLocation)
        case (.failure(let error), .failure(let expected)):
            #expect(sameError(error, expected), "\(T.self) from \(text): \(error), JSONDecoder \(expected)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(T.self) from \(text): \(wire), JSONDecoder \(foundation)", sourceLocation: sourceLocation)
        }
    }

    func expectAgreement<T: Decodable & Equatable>(_ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectAgreement(type, Data(json.utf8), same: ==, sourceLocation: sourceLocation)
    }

    /// The same error but for its path. A dictionary's members have no order: when two of them fail,
    /// JSONDecoder reports whichever its own dictionary lists first, and that order changes from one
    /// decoding to the next (a frame whose `mediaType` and `sort` were both broken was reported at
    /// either key by JSONDecoder alone).
    static func sameErrorAtAnyMember(_ one: any Error, _ other: any Error) -> Bool {
        func withoutPath(_ error: any Error) -> String {
            switch error as? DecodingError {
            case .typeMismatch(let type, let context): "typeMismatch \(type) \(context.debugDescription) \(context.codingPath.count)"
            case .valueNotFound(let type, let context): "valueNotFound \(type) \(context.debugDescription) \(context.codingPath.count)"
            case .keyNotFound(let key, let context): "keyNotFound \(key.stringValue) \(context.debugDescription) \(context.codingPath.count)"
            case .dataCorrupted(let context): "dataCorrupted \(context.debugDescription) \(context.codingPath.count)"
            default: "\(error)"
            }
        }
        return withoutPath(one) == withoutPath(other)
    }

    /// For values that are not Equatable: the same JSON, keys sorted.
    static func sameJSON<T: Encodable>(_ one: T, _ other: T) -> Bool {
        let encoder = WireCoding.makeEncoder(sortedKeys: true)
        return (try? encoder.encode(one)) == (try? encoder.encode(other))
    }

    // MARK: Fixtures

    static let fetchFrame = try! WireCoding.encode(RequestEnvelope(
        id: "bench-3-17-1a2b3c4d", op: .fetchAssets, body: FetchAssetsRequest(localIdentifiers: ["9F2C41D0-77AB/L0/001", "B\\2"])))

    static let auditFrame = try! WireCoding.encode(RequestEnvelope(id: "audit-1", op: .recordAudit, body: AuditRecordRequest(entries: [
        AuditEntry(app: "com.example.app", operation: "fetch", assetCount: 2, outcome: "ok", at: Date(timeIntervalSince1970: 1_700_000_000)),
        AuditEntry(id: 7, app: "com.example.app", operation: "load", assetCount: 1, outcome: "ok",
                   at: Date(timeIntervalSince1970: 1_700_000_100), bytes: 32768, asset: "A/L0/001"),
    ])))

    struct Sample: Codable, Equatable {
        enum Kind: String, Codable { case a, b }
        struct Nested: Codable, Equatable {
            var x: Int
            var y: String?
        }

        var name: String
        var count: Int
        var small: Int8?
        var big: UInt64?
        var ratio: Double?
        var fraction: Float?
        var flag: Bool?
        var kind: Kind?
        var tags: [String]?
        var nested: Nested?
        var list: [Nested]?
        var map: [String: Int]?
    }

    struct Dated: Codable, Equatable {
        var at: Date?
        var many: [Date]?
        var byName: [String: Date]?
    }

    /// Reads as some Decodables do: errors swallowed (`try?`), keys listed, paths and positions looked at.
    struct Probing: Decodable, Equatable {
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        var number: Int?
        var text: String?
        var keys: [String]
        var paths: [String]
        var positions: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            number = try? container.decode(Int.self, forKey: AnyKey(stringValue: "n"))
            text = try? container.decodeIfPresent(String.self, forKey: AnyKey(stringValue: "t"))
            keys = container.allKeys.map(\.stringValue).sorted()
            paths = []
            positions = []
            guard container.contains(AnyKey(stringValue: "list")) else { return }
            var list = try container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "list"))
            while !list.isAtEnd {
                positions.append("\(list.currentIndex)/\(list.count ?? -1)")
                if try list.decodeNil() { continue }
                let element = try list.nestedContainer(keyedBy: AnyKey.self)
                paths.append(try element.decode(PathProbe.self, forKey: AnyKey(stringValue: "leaf")).path)
            }
        }
    }

    /// Its coding path, as its decoder says it.
    struct PathProbe: Decodable {
        var path: String
        init(from decoder: any Decoder) throws {
            path = decoder.codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "-")" }.joined(separator: ".")
        }
    }

    /// A key outside ASCII that String's equality matches to an ASCII one (the Kelvin sign and K).
    struct Kelvin: Codable, Equatable {
        var kelvin: Int?
        enum CodingKeys: String, CodingKey { case kelvin = "\u{212A}" }
    }

    // MARK: The fast path

    @Test func readsTheRequestHeaderItselfAndGivesUpOnWhatItDoesNotReadPlainly() throws {
        let body = try #require(WireJSONDecoder.fastDecode(RequestEnvelope<FetchAssetsRequest>.BodyOnly.self, from: Self.fetchFrame)?.body)
        #expect(body.localIdentifiers == ["9F2C41D0-77AB/L0/001", "B\\2"])
        let envelope = try #require(WireJSONDecoder.fastDecode(RequestEnvelope<FetchAssetsRequest>.self, from: Self.fetchFrame))
        #expect(envelope.op == .fetchAssets && envelope.id == "bench-3-17-1a2b3c4d" && envelope.v == protocolVersion)
        #expect(WireJSONDecoder.fastDecode(RequestHead.self, from: Self.fetchFrame) == RequestHeadScanner.scan(Self.fetchFrame))
        #expect(try RequestEnvelope<FetchAssetsRequest>.decodeBody(from: Self.fetchFrame).localIdentifiers == body.localIdentifiers)
        // The body alone, read from its member.
        #expect(WireJSONDecoder.fastDecode(FetchAssetsRequest.self, member: "body", from: Self.fetchFrame)?.localIdentifiers == body.localIdentifiers)
        #expect(WireJSONDecoder.fastDecode(FetchAssetsRequest.self, member: "body", from: Data(#"{"v":1,"body":null}"#.utf8)) == nil)
        #expect(WireJSONDecoder.fastDecode(FetchAssetsRequest.self, member: "body", from: Data(#"{"v":1,"body":{"localIdentifiers":7}}"#.utf8)) == nil)

        // Dates are JSONDecoder's to read; so is a \u escape.
        #expect(WireJSONDecoder.fastDecode(RequestEnvelope<AuditRecordRequest>.BodyOnly.self, from: Self.auditFrame) == nil)
        let escaped = Data(#"{"v":1,"id":"a","op":"library.fetchAssets","body":{"localIdentifiers":["\u0041"]}}"#.utf8)
        #expect(WireJSONDecoder.fastDecode(RequestEnvelope<FetchAssetsRequest>.BodyOnly.self, from: escaped) == nil)
        #expect(try RequestEnvelope<FetchAssetsRequest>.decodeBody(from: escaped).localIdentifiers == ["A"])
        #expect(try RequestEnvelope<AuditRecordRequest>.decodeBody(from: Self.auditFrame).entries.last?.bytes == 32768)
    }

    @Test func aMissingOrNullBodyStillReadsAsAnEmptyObject() throws {
        for frame in [#"{"v":1,"id":"a","op":"picker.pick"}"#, #"{"v":1,"id":"a","op":"picker.pick","body":null}"#] {
            let body = try RequestEnvelope<PickRequest>.decodeBody(from: Data(frame.utf8))
            #expect(body.configuration == PickerConfiguration())
        }
        #expect(throws: DecodingError.self) { try RequestEnvelope<FetchAssetsRequest>.decodeBody(from: Data(#"{"v":1}"#.utf8)) }
        // A body of the wrong shape is JSONDecoder's to reject, with its words.
        let wrong = Data(#"{"v":1,"id":"a","op":"library.fetchAssets","body":{"localIdentifiers":7}}"#.utf8)
        #expect(throws: DecodingError.self) { try RequestEnvelope<FetchAssetsRequest>.decodeBody(from: wrong) }
    }

    // MARK: Messages

    /// Encodes `body` in a request, decodes the frame (whole, body only, and the bare body) both ways;
    /// returns whether the body was read on the fast path.
    @discardableResult
    func expectAgreement<Body: Codable & Sendable>(onRequestWith body: Body, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        let frame = try WireCoding.encode(RequestEnvelope(id: "r-1", op: .ping, body: body))
        expectAgreement(RequestEnvelope<Body>.self, frame, same: Self.sameJSON, sourceLocation: sourceLocation)
        expectAgreement(RequestEnvelope<Body>.BodyOnly.self, frame, same: Self.sameJSON, sourceLocation: sourceLocation)
        expectAgreement(Body.self, try WireCoding.encode(body), same: Self.sameJSON, sourceLocation: sourceLocation)
        if let fast = WireJSONDecoder.fastDecode(Body.self, member: "body", from: frame) {
            #expect(Self.sameJSON(fast, try WireCoding.makeDecoder().decode(Body.self, from: try WireCoding.encode(body))),
                    sourceLocation: sourceLocation)
        }
        return WireJSONDecoder.fastDecode(RequestEnvelope<Body>.BodyOnly.self, from: frame) != nil
    }

    @Test func decodesMessagesAsJSONDecoderDoes() throws {
        let summary = AssetSummary(identifier: "ID-1/L0/001", fileName: "IMG \"1\".JPG", type: .jpeg, mediaType: .image,
                                   subtypes: [], pixelWidth: 4032, pixelHeight: 3024, duration: 2.5, fileSize: Int64.max,
                                   creationDate: Date(timeIntervalSince1970: 1_700_000_000), isInCloud: true)
        let plain: [Bool] = [
            try expectAgreement(onRequestWith: Empty()),
            try expectAgreement(onRequestWith: FetchAssetsRequest(localIdentifiers: ["A/L0/001", "tab\tquote\"slash/", ""])),
            try expectAgreement(onRequestWith: AssetQuery(mediaType: .video, sort: .oldestFirst, offset: 0, limit: 20, after: "c/1")),
            try expectAgreement(onRequestWith: StatusRequest(level: .readWrite)),
            try expectAgreement(onRequestWith: ListAssetsRequest(limit: 50)),
            try expectAgreement(onRequestWith: ImageRequest(asset: "A", targetWidth: 256, targetHeight: 256, contentMode: .fill)),
            try expectAgreement(onRequestWith: VideoRequest(asset: "V", deliveryMode: .highQualityFormat, credit: 4, chunkSize: 65536)),
            try expectAgreement(onRequestWith: PickRequest(configuration: PickerConfiguration(selectionLimit: 3, filter: .images,
                                                                                              preselectedAssetIdentifiers: ["P"]))),
            try expectAgreement(onRequestWith: RegisterAppRequest(manifest: AppManifest(id: "com.example", name: "Example", publicKey: "k"))),
            try expectAgreement(onRequestWith: ImageResultInfo(isDegraded: true, type: .jpeg, pixelWidth: 1, pixelHeight: -1)),
            try expectAgreement(onRequestWith: StatusResponse(level: nil, status: .limited)),
            try expectAgreement(onRequestWith: ServiceIdentity(service: "lightbox-picker", principal: "app:x")),
            try expectAgreement(onRequestWith: LightboxError(.badRequest, "No.", details: ["field": "body.x", "b": ""])),
            try expectAgreement(onRequestWith: DownloadProgress(completed: 1, total: Int64.max)),
            try expectAgreement(onRequestWith: ImagePropertiesResponse(asset: "A", properties: [
                "Orientation": .number(6), "{GPS}": .object([:]), "Flash": .bool(false), "Lens": .null, "Model": .string("X\\1"),
                "Size": .array([.number(-1.5e-7), .number(4000)]),
            ])),
        ]
        #expect(plain.allSatisfy { $0 }, "some plain message was not read on the fast path: \(plain)")

        // Left to JSONDecoder, and still the same: dates, non-ASCII JSONValue, object filters.
        let special: [Bool] = [
            try expectAgreement(onRequestWith: AuditRecordRequest(entries: [AuditEntry(app: "a", operation: "read", assetCount: 1,
                                                                                        outcome: "ok", at: Date(timeIntervalSince1970: 0))])),
            try expectAgreement(onRequestWith: FetchAssetsResponse(assets: [summary, summary], total: 2, next: "n")),
            try expectAgreement(onRequestWith: AssetQuery(from: Date(timeIntervalSince1970: 1e9), limit: 1)),
            try expectAgreement(onRequestWith: ImagePropertiesResponse(asset: "A", properties: ["Model": .string("Café")])),
            try expectAgreement(onRequestWith: PickRequest(configuration: PickerConfiguration(filter: .any([.images, .not(.videos)])))),
        ]
        #expect(!special.contains(true))
    }

    @Test func decodesTheGoldenFixturesAsJSONDecoderDoes() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/golden").standardizedFileURL
        func check<T: Codable & SendableMetatype>(_ name: String, _ type: T.Type) throws {
            expectAgreement(type, try Data(contentsOf: folder.appendingPathComponent(name)), same: Self.sameJSON)
        }
        try check("pick-request.json", RequestEnvelope<PickRequest>.self)
        try check("load-request.json", RequestEnvelope<LoadRequest>.self)
        try check("stream-credit.json", RequestEnvelope<StreamCredit>.self)
        try check("register-app-request.json", RequestEnvelope<RegisterAppRequest>.self)
        try check("choose-request.json", RequestEnvelope<ChooseRequest>.self)
        try check("auth-request.json", RequestEnvelope<AuthorizationRequest>.self)
        try check("set-access-request.json", RequestEnvelope<SetAccessRequest>.self)
        try check("fetch-assets-request.json", RequestEnvelope<FetchAssetsRequest>.self)
        try check("audit-request.json", RequestEnvelope<AuditRequest>.self)
        try check("pick-started-event.json", ReplyEnvelope<PickStarted>.self)
        try check("pick-reply.json", ReplyEnvelope<PickResponse>.self)
        try check("chunk-reply.json", ReplyEnvelope<ChunkHeader>.self)
        try check("load-completion.json", ReplyEnvelope<StreamCompletion>.self)
        try check("error-reply.json", ReplyEnvelope<ErrorBody>.self)
        try check("pending-reply.json", ReplyEnvelope<PendingPicksResponse>.self)
        try check("prompt-shown-event.json", ReplyEnvelope<PromptShown>.self)
        try check("status-reply.json", ReplyEnvelope<StatusResponse>.self)
        try check("change-event.json", ReplyEnvelope<AuthorizationChange>.self)
        try check("library-change-event.json", ReplyEnvelope<LibraryChange>.self)
        try check("audit-reply.json", ReplyEnvelope<AuditResponse>.self)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let frame = try Data(contentsOf: folder.appendingPathComponent(name))
            expectAgreement(ReplyHead.self, frame, same: { $0.v == $1.v && $0.id == $1.id && $0.status == $1.status })
            expectAgreement(RequestHead.self, frame, same: ==)
            expectAgreement(JSONValue.self, frame, same: ==)
            expectAgreement([String: JSONValue].self, frame, same: ==)
            expectAgreement([JSONValue].self, frame, same: ==)
        }
    }

    // MARK: Crafted frames

    @Test func agreesOnCraftedFrames() {
        let base = #""name":"a","count":1"#
        let samples = [
            "{\(base)}", "{\(base),\"small\":null}", #"{"name":"a"}"#, #"{"name":"a","count":null}"#, #"{"count":1}"#,
            // Integers at and beyond their bounds, and numbers JSONDecoder reads as integers by its own rules.
            #"{"name":"a","count":9223372036854775807}"#, #"{"name":"a","count":-9223372036854775808}"#,
            #"{"name":"a","count":9223372036854775808}"#, #"{"name":"a","count":-9223372036854775809}"#,
            #"{"name":"a","count":1.0}"#, #"{"name":"a","count":1e2}"#, #"{"name":"a","count":-0}"#, #"{"name":"a","count":0}"#,
            #"{"name":"a","count":01}"#, #"{"name":"a","count":1.5}"#, #"{"name":"a","count":-1}"#, #"{"name":"a","count":"1"}"#,
            "{\(base),\"small\":127}", "{\(base),\"small\":128}", "{\(base),\"small\":-128}", "{\(base),\"small\":-129}",
            "{\(base),\"big\":18446744073709551615}", "{\(base),\"big\":18446744073709551616}", "{\(base),\"big\":-1}",
            "{\(base),\"big\":-0}", "{\(base),\"big\":0}",
            // Floating point, correctly rounded either way; overflow and underflow are errors.
            "{\(base),\"ratio\":0.1}", "{\(base),\"ratio\":-0}", "{\(base),\"ratio\":-0.0}", "{\(base),\"ratio\":1e308}",
            "{\(base),\"ratio\":1e309}", "{\(base),\"ratio\":4.9e-324}", "{\(base),\"ratio\":1e-400}", "{\(base),\"ratio\":0e-400}",
            "{\(base),\"ratio\":2.2250738585072011e-308}", "{\(base),\"ratio\":123456789012345678901234567890}",
            "{\(base),\"ratio\":0.30000000000000004}", "{\(base),\"ratio\":1E+2}", "{\(base),\"ratio\":\"1\"}",
            "{\(base),\"fraction\":3.4028235e38}", "{\(base),\"fraction\":3.5e38}", "{\(base),\"fraction\":1e-46}",
            "{\(base),\"fraction\":16777217}", "{\(base),\"fraction\":0.1}",
            "{\(base),\"flag\":true}", "{\(base),\"flag\":false}", "{\(base),\"flag\":\"true\"}", "{\(base),\"flag\":1}",
            "{\(base),\"kind\":\"a\"}", "{\(base),\"kind\":\"c\"}", "{\(base),\"kind\":1}", "{\(base),\"kind\":null}",
            // Strings: simple escapes are read here, \u and raw non-ASCII by JSONDecoder; raw control characters are errors.
            #"{"name":"a\"b\\c\/d\be\ff\ng\rh\ti","count":1}"#, #"{"name":"\u00e9","count":1}"#, #"{"name":"é","count":1}"#,
            #"{"name":"\ud83d\ude00","count":1}"#, #"{"name":"a\u0000","count":1}"#, "{\"name\":\"a\tb\",\"count\":1}",
            #"{"name":"a\x","count":1}"#, #"{"na\u006de":"a","count":1}"#, #"{"na\nme":"a","count":1}"#,
            // Duplicates, unknown keys, odd spacing, trailing garbage.
            #"{"name":"a","name":"b","count":1}"#, "{\(base),\"extra\":{\"deep\":[1,2,{\"x\":null}],\"e\":1e999}}",
            " \n{ \"name\" : \"a\" ,\r\"count\"\t: 1 }\t", "{\(base)} x", "{\(base)}}", "{\(base),}", "{\(base)", "{\(base)}\u{0}",
            // Wrong shapes.
            #"{"name":1,"count":1}"#, "{\(base),\"tags\":\"x\"}", "{\(base),\"nested\":[]}", "{\(base),\"list\":{}}", "[]", "\"x\"",
            "null", "", " ", "{", "1",
            // Containers, empty and nested.
            "{\(base),\"tags\":[]}", "{\(base),\"map\":{}}", "{\(base),\"list\":[]}", "{\(base),\"tags\":[\"x\",\"y\"]}",
            "{\(base),\"nested\":{\"x\":1}}", "{\(base),\"list\":[{\"x\":1},{\"x\":2,\"y\":\"b\"},{\"x\":3,\"y\":null}]}",
            "{\(base),\"list\":[{\"x\":1},{\"y\":\"b\"}]}", "{\(base),\"list\":[null]}", "{\(base),\"tags\":[null]}",
            "{\(base),\"map\":{\"a\":1,\"b\":2,\"\":-3}}", "{\(base),\"map\":{\"a\":\"x\"}}", "{\(base),\"map\":{\"a\":1,\"a\":2}}",
            "{\(base),\"map\":{\"1\":1}}", "{\(base),\"map\":[]}",
        ]
        for frame in samples { expectAgreement(Sample.self, frame) }

        for frame in ["[1,null,2]", "[]", "[1,\"2\"]", "[1.5]", "[null]", " [ 1 , 2 ] ", "[1,]"] {
            expectAgreement([Int?].self, frame)
            expectAgreement([Int].self, frame)
        }
        for frame in [#"{"a":{"x":1},"b":{"x":2,"y":"z"}}"#, "{}", #"{"a":1}"#, #"{"a":{"x":1},"a":{"x":2}}"#] {
            expectAgreement([String: Sample.Nested].self, frame)
        }
        for frame in [#"{"1":"a","-2":"b"}"#, #"{"x":"a"}"#, #"{"01":"a"}"#] { expectAgreement([Int: String].self, frame) }
        for frame in ["1", " 1 ", "-0", "1.0", "\"a\"", "true", "null", "1 1"] {
            expectAgreement(Int.self, frame)
            expectAgreement(Double.self, frame)
            expectAgreement(String.self, frame)
            expectAgreement(Bool?.self, frame)
        }
        for frame in ["{}", #"{"K":1}"#, #"{"\u212a":1}"#, #"{"\u212A":1}"#] { expectAgreement(Kelvin.self, frame) }
    }

    @Test func leavesDatesToJSONDecoder() {
        let frames = [
            #"{"at":"2024-05-01T10:00:00Z"}"#, #"{"at":"2024-05-01T10:00:00.5Z"}"#, #"{"at":"2024-05-01T10:00:00+02:00"}"#,
            #"{"at":"not a date"}"#, #"{"at":0}"#, #"{"at":null}"#, #"{"many":["2024-05-01T10:00:00Z"]}"#, #"{"many":[]}"#,
            #"{"byName":{"a":"2024-05-01T10:00:00Z"}}"#, #"{"byName":{}}"#, "{}",
        ]
        for frame in frames { expectAgreement(Dated.self, frame) }
        #expect(WireJSONDecoder.fastDecode(Dated.self, from: Data(frames[0].utf8)) == nil)
        #expect(WireJSONDecoder.fastDecode(Dated.self, from: Data(frames[6].utf8)) == nil)
        #expect(WireJSONDecoder.fastDecode(Dated.self, from: Data(frames[8].utf8)) == nil)
        #expect(WireJSONDecoder.fastDecode(Date.self, from: Data("0".utf8)) == nil)
        #expect(WireJSONDecoder.fastDecode(Date?.self, from: Data("0".utf8)) == nil)
        // Without a date in it, the frame is read here.
        #expect(WireJSONDecoder.fastDecode(Dated.self, from: Data(#"{"at":null,"many":[]}"#.utf8)) == Dated(many: []))
        for frame in ["\"AQID\"", "\"https://example.com/a b\"", "1.5", "\"x\""] {
            expectAgreement(Data.self, frame)
            expectAgreement(URL.self, frame)
            expectAgreement(Decimal.self, frame)
        }
    }

    @Test func aSwallowedGiveUpStillGoesToJSONDecoder() throws {
        let frames = [
            #"{"n":1,"t":"x","list":[{"leaf":1},null,{"leaf":[]}]}"#, #"{"n":1.0,"t":null}"#, #"{"n":"1","t":2}"#, #"{"t":"\u0041"}"#,
            #"{"list":[]}"#, "{}", #"{"list":[null,null]}"#,
        ]
        for frame in frames { expectAgreement(Probing.self, frame) }
        // JSONDecoder reads 1.0 as the Int 1; this decoder gives up, though the error was swallowed.
        #expect(WireJSONDecoder.fastDecode(Probing.self, from: Data(frames[1].utf8)) == nil)
        #expect(try WireJSONDecoder.decode(Probing.self, from: Data(frames[1].utf8)).number == 1)
        #expect(WireJSONDecoder.fastDecode(Probing.self, from: Data(frames[0].utf8))?.paths == ["list|-.Index 0|0.leaf|-", "list|-.Index 2|2.leaf|-"])
    }

    /// Arrays of arrays, read through the unkeyed container.
    struct Nest: Decodable, Equatable {
        var children: [Nest]
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            children = []
            while !container.isAtEnd { children.append(try container.decode(Nest.self)) }
        }
    }

    @Test func leavesDeepNestingToJSONDecoder() {
        for depth in [1, 63, 64, 65, 600] {
            let frame = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            expectAgreement(Nest.self, frame)
            expectAgreement(JSONValue.self, frame)
            expectAgreement(PickerFilter.self, frame)
            #expect((WireJSONDecoder.fastDecode(Nest.self, from: Data(frame.utf8)) != nil) == (depth <= 64))
        }
    }

    @Test func readsFloatingPointAsJSONDecoderDoes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let double = Double(bitPattern: generator.next())
            guard double.isFinite else { continue }
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            let digits = Int.random(in: 1...25, using: &generator)
            let texts = [double.description, String(double.description.prefix(digits)), float.description,
                         "\(Int64.random(in: .min ... .max, using: &generator))e\(Int.random(in: -330...310, using: &generator))"]
            for text in texts {
                expectAgreement(Double.self, Data(text.utf8), same: { $0.bitPattern == $1.bitPattern })
                expectAgreement(Float.self, Data(text.utf8), same: { $0.bitPattern == $1.bitPattern })
            }
        }
    }

    // MARK: Mutated frames

    /// The frame the mutated-frame test once failed on: two members that cannot be read (a byte that
    /// is not UTF-8, an escape JSON has not). Both decoders refuse it with the same error; which
    /// member it names is JSONDecoder's dictionary order.
    @Test func twoUnreadableMembersGiveTheSameErrorAtOneOfThem() {
        for byte in [UInt8(0x80), 0x82, 0xFF] {
            var frame = Data(#"{"id":"q","v":1,"op":"library.query","body":{"uimit":20,"mediaType":"Xmage","sort":"new\stFirst"}}"#.utf8)
            frame[frame.firstIndex(of: UInt8(ascii: "X"))!] = byte
            expectAgreement([String: JSONValue].self, frame, same: ==, sameError: Self.sameErrorAtAnyMember)
            #expect(throws: DecodingError.self) { try WireJSONDecoder.decode([String: JSONValue].self, from: frame) }
        }
    }

    /// Frames a byte or a few away from real ones: broken, or still JSON in odd ways.
    @Test func agreesOnTenThousandMutatedFrames() throws {
        let frames = [
            Self.fetchFrame, Self.auditFrame,
            try WireCoding.encode(RequestEnvelope(id: "q", op: .queryAssets, body: AssetQuery(mediaType: .image, sort: .newestFirst, limit: 20))),
            try WireCoding.encode(RequestEnvelope(id: "p", op: .pick, body: PickRequest(configuration: PickerConfiguration(selectionLimit: 2)))),
            Data(#"{"name":"a\tb","count":-12,"small":3,"big":7,"ratio":1.5e3,"fraction":-0.25,"flag":true,"kind":"b","tags":["x"],"# .utf8)
                + Data(#""nested":{"x":1,"y":null},"list":[{"x":2}],"map":{"k":4}}"#.utf8),
        ]
        // A failing frame is printed whole, so a random one is as good as a seeded one.
        var generator = SystemRandomNumberGenerator()
        var fastCount = 0
        for iteration in 0..<10_000 {
            let frame = frames[iteration % frames.count].mutated(using: &generator)
            switch iteration % frames.count {
            case 0:
                expectAgreement(RequestEnvelope<FetchAssetsRequest>.BodyOnly.self, frame, same: Self.sameJSON)
                if WireJSONDecoder.fastDecode(RequestEnvelope<FetchAssetsRequest>.BodyOnly.self, from: frame) != nil { fastCount += 1 }
            case 1: expectAgreement(RequestEnvelope<AuditRecordRequest>.BodyOnly.self, frame, same: Self.sameJSON)
            case 2: expectAgreement(RequestEnvelope<AssetQuery>.self, frame, same: ==)
            case 3: expectAgreement(RequestEnvelope<PickRequest>.BodyOnly.self, frame, same: Self.sameJSON)
            default: expectAgreement(Sample.self, frame, same: ==)
            }
            expectAgreement(RequestHead.self, frame, same: ==)
            expectAgreement([String: JSONValue].self, frame, same: ==, sameError: Self.sameErrorAtAnyMember)
        }
        // Not vacuous: many mutations leave a frame read on the fast path.
        #expect(fastCount > 200)
    }
}

import Foundation
import LightboxProtocol
import Testing

/// `WireJSONEncoder` writes every wire type itself, from the type's own `encode(to:)`: each must
/// come out as the JSON JSONEncoder makes of the same value, and decode back to that value.
@Suite struct WireJSONEncoderTests {
    /// Every Codable type the protocol module declares (`everyWireTypeIsListed` keeps it whole).
    static let wireTypes: [any (Codable & Sendable).Type] = [
        // Auth
        AppManifest.self, RegisterAppRequest.self, AppManifestResponse.self, AppListResponse.self, IdentifyRequest.self,
        ServiceIdentity.self, AccessLevel.self, AuthorizationStatus.self, StatusRequest.self, StatusResponse.self,
        AuthorizationRequest.self, PromptShown.self, LimitedLibraryPickerResponse.self, AuthorizationChange.self,
        ChangesRequest.self, ChangesResponse.self, OwnerPrompt.self, OwnerPrompt.Kind.self, PromptsRequest.self,
        PromptsResponse.self, PromptAnswer.self, AnswerPromptRequest.self, AppAccess.self, AppAccessListResponse.self,
        SetAccessRequest.self, SetAccessRequest.ReadWrite.self, SetAccessRequest.AddOnly.self, SetAccessResponse.self,
        AuditRequest.self, AccessDetailRequest.self, AccessDetail.self, AuditEntry.self, AuditRecordRequest.self,
        AuditResponse.self, LibraryAction.self, LibraryScope.self, LibraryDecision.self, AppDecisionsRequest.self,
        AppDecisions.self, DecisionsChanged.self, DecisionsApplied.self, AppLaunch.self, AssetCreatedRequest.self,
        GrantTerm.self, GrantTerm.Afterwards.self,
        Hello.self, AuditSummaryRequest.self, AuditSummary.self,
        // Envelopes, errors, names
        ReplyStatus.self, Empty.self, ErrorCode.self, LightboxError.self, OperationName.self, UTType.self, JSONValue.self,
        // Delivery
        OpenRequest.self, FileTicket.self, DeliveryAnswer.self, DeliveryAnswer.Status.self,
        // Library
        LibraryChange.self, LibraryChangesRequest.self, LibraryChangesResponse.self, AlbumMembershipRequest.self,
        AlbumAssetsRequest.self, DeleteAssetsRequest.self, DeleteAssetsResponse.self, DeleteConfirmationRequest.self,
        DeleteConfirmation.self, FetchAssetsRequest.self, AssetQuery.self, AssetQuery.Sort.self, FetchAssetsResponse.self,
        CreateAssetRequest.self, CreateAssetResponse.self, Album.self, AlbumsResponse.self, CreateAlbumRequest.self,
        AlbumResponse.self,
        // Media
        MetadataStripping.self, LocationAccess.self, ImageContentMode.self, ImageDeliveryMode.self, ImageVersion.self, ImageRequest.self,
        ImageResultInfo.self, CancelImageRequest.self, VideoDeliveryMode.self, VideoRequest.self, VideoResultInfo.self,
        DownloadProgress.self, AssetRequest.self, ImagePropertiesResponse.self, TranscodeProgress.self,
        // Owner
        PendingPicksRequest.self, PendingPick.self, PendingPicksResponse.self, ListAssetsRequest.self, LibraryOutline.self, AssetSummary.self,
        ListAssetsResponse.self, ThumbnailRequest.self, ThumbnailInfo.self, MediaRangeRequest.self, MediaRangePart.self, MediaRangeInfo.self, AssetDetails.self, ChooseRequest.self,
        ChooseResponse.self, CancelPickRequest.self, RevokeRequest.self, RevokeResponse.self, ImportRequest.self,
        ImportProgress.self, ImportFailure.self, ImportSummary.self,
        // Picker and provider
        PickerFilter.self, MediaType.self, MediaSubtype.self, PickerConfiguration.self, PickerConfiguration.Selection.self,
        PickerConfiguration.RepresentationMode.self, PickRequest.self, PickStarted.self, ItemProviderDescriptor.self,
        PickerResult.self, PickResponse.self, TokenRequest.self, ProviderDescription.self, ImageProperties.self,
        LoadRequest.self, ChunkHeader.self, StreamCredit.self, StreamCancel.self, StreamCompletion.self,
        SelectionLimits.self, SelectionMisfit.self, SelectionMisfit.Limit.self,
        // The desktop portal
        PortalAppAnnouncement.self, PortalPickRequest.self, PortalLoadRequest.self, PortalAppRevoked.self, PortalCancelRequest.self,
        // Edits with the original kept
        AdjustmentData.self, EditAssetRequest.self, EditedVersion.self, EditingInput.self, OwnerAssetEdit.self, RevertResponse.self,
    ]

    /// Sample mixes per type (see `SampleSource.variant`).
    static let variants = 0..<8

    /// The encoder's JSON of `value` is JSONEncoder's, and decodes back to a value whose JSON is the same again.
    func expectAsJSONEncoder<T: Codable>(_ value: T, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try WireJSONEncoder.encode(value)
        let encoded = try WireCoding.makeEncoder().encode(value)
        #expect(try WireCoding.decode(JSONValue.self, from: written) == WireCoding.decode(JSONValue.self, from: encoded),
                "\(what): \(String(decoding: written, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))",
                sourceLocation: sourceLocation)
        let decoded = try WireCoding.decode(T.self, from: written)
        #expect(try WireCoding.decode(JSONValue.self, from: WireCoding.makeEncoder().encode(decoded))
                == WireCoding.decode(JSONValue.self, from: encoded), "\(what) decoded back", sourceLocation: sourceLocation)
        #expect(try WireCoding.encode(value) == written, "\(what): WireCoding wrote it with JSONEncoder", sourceLocation: sourceLocation)
    }

    func expectEveryVariant<T: Codable & Sendable>(of type: T.Type) throws {
        for variant in Self.variants {
            let value = try SampleSource(variant: variant).make(T.self, at: [])
            try expectAsJSONEncoder(value, "\(T.self) #\(variant)")
            try expectAsJSONEncoder(ReplyEnvelope(id: "reply \"\(variant)\"", status: .ok, body: value), "reply of \(T.self) #\(variant)")
            try expectAsJSONEncoder(RequestEnvelope(id: "req/\(variant)", op: .ping, body: value), "request of \(T.self) #\(variant)")
            try expectAsJSONEncoder([value, value], "array of \(T.self) #\(variant)")
            try expectAsJSONEncoder(["a": value, "quote \"": value], "dictionary of \(T.self) #\(variant)")
        }
    }

    @Test("Every wire type is written as JSONEncoder writes it, alone, in envelopes, arrays and dictionaries")
    func everyWireType() throws {
        for type in Self.wireTypes { try expectEveryVariant(of: type) }
    }

    @Test("Every Codable type of the protocol module is in the list the encoder is held to")
    func everyWireTypeIsListed() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Shared/LightboxProtocol")
            .standardizedFileURL
        // `public struct Name: …Codable…{` and `public enum Name: …WireName…{`, nested ones too.
        let declaration = try NSRegularExpression(
            pattern: #"^\s*public (?:indirect )?(?:struct|enum|final class) (\w+)(?:<[^>]*>)?\s*:([^{]*)\{"#, options: .anchorsMatchLines)
        var declared: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let source = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for match in declaration.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                let conformances = String(source[Range(match.range(at: 2), in: source)!])
                guard conformances.contains("Codable") || conformances.contains("WireName") else { continue }
                declared.insert(String(source[Range(match.range(at: 1), in: source)!]))
            }
        }
        // The envelopes are generic: every type above is checked inside both.
        let listed = Set(Self.wireTypes.map { String(describing: $0) } + ["RequestEnvelope", "ReplyEnvelope"])
        #expect(declared.count > 100)
        #expect(declared.subtracting(listed).isEmpty, "not in WireJSONEncoderTests.wireTypes: \(declared.subtracting(listed).sorted())")
    }

    @Test("Strings are escaped as JSONEncoder escapes them, wherever the escaped byte falls")
    func escapesAtEveryPosition() throws {
        for escaped in ["\"", "\\", "\u{00}", "\u{1F}", "\n", "\t", "\u{7F}", "/", "é", "🏔️", "\u{2028}"] {
            for position in 0..<20 {
                let text = String(repeating: "x", count: position) + escaped + String(repeating: "y", count: 19 - position)
                try expectAsJSONEncoder(text, "string with \(escaped.debugDescription) at \(position)")
                try expectAsJSONEncoder([text: text], "member named with \(escaped.debugDescription) at \(position)")
            }
        }
    }

    @Test("Strings, numbers and dates alone are byte for byte JSONEncoder's")
    func scalarsByteForByte() throws {
        func expectSameBytes<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let written = try WireJSONEncoder.encode(value), encoded = try WireCoding.makeEncoder().encode(value)
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))",
                    sourceLocation: sourceLocation)
        }
        for text in SampleSource.strings + SampleSource.keys { try expectSameBytes(text) }
        for number in SampleSource.doubles { try expectSameBytes(number) }
        for number in SampleSource.integers { try expectSameBytes(number) }
        for date in SampleSource.dates { try expectSameBytes(date) }
        for value in SampleSource.json where value.isScalar { try expectSameBytes(value) }
    }

    /// A type that asks for what synthesized Codable never does.
    struct Unusual: Codable {
        var kind: Int
        enum Keys: String, CodingKey { case nested, values, single }

        init(kind: Int) { self.kind = kind }
        init(from decoder: any Decoder) throws { kind = 0 }

        func encode(to encoder: any Encoder) throws {
            switch kind {
            case 0:
                var container = encoder.container(keyedBy: Keys.self)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
                try nested.encode("inner", forKey: .single)
            case 1:
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .single)
                try super_(encoder: container.superEncoder())
            case 2:
                var first = encoder.container(keyedBy: Keys.self)
                try first.encode(1, forKey: .single)
                var second = encoder.container(keyedBy: Keys.self)
                try second.encode([2, 3], forKey: .values)
            case 3:
                var container = encoder.singleValueContainer()
                try container.encode(Float(0.1))
            case 4:
                var container = encoder.unkeyedContainer()
                try container.encode(URL(string: "https://example.com/a b")!)
                try container.encode(Data([0, 1, 2, 250]))
                try container.encode(Decimal(string: "12.50")!)
            default:
                break
            }
        }

        private func super_(encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode("super")
        }
    }

    @Test("What the encoder leaves to JSONEncoder is encoded by JSONEncoder, to its JSON or its error")
    func unusualValuesFallBack() throws {
        for kind in 0..<5 {
            let value = Unusual(kind: kind)
            #expect(throws: WireJSONWriter.Unwritable.self) { try WireJSONEncoder.encode(value) }
            #expect(try WireCoding.decode(JSONValue.self, from: WireCoding.encode(value))
                    == WireCoding.decode(JSONValue.self, from: WireCoding.makeEncoder().encode(value)), "kind \(kind)")
        }
        // Dates JSONEncoder writes in the Julian calendar (before 1582-10-15), and after year 9999.
        for seconds in [-12_219_292_800.5, -62_135_596_800, -1e11, 253_402_300_800] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(throws: WireJSONWriter.Unwritable.self) { try WireJSONEncoder.encode(date) }
            #expect(try WireCoding.encode(date) == WireCoding.makeEncoder().encode(date))
        }
        // Nothing at all: JSONEncoder's error.
        #expect(throws: EncodingError.self) { try WireCoding.encode(Unusual(kind: 5)) }
        #expect(throws: EncodingError.self) { try WireCoding.encode(JSONValue.number(.nan)) }
        #expect(throws: EncodingError.self) { try WireCoding.encode(["a": [Double.infinity]]) }
    }
}

extension JSONValue {
    var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }
}

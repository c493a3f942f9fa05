import Foundation
import LightboxProtocol
import Testing

/// The golden files pin the wire format; the Python client checks the same files.
@Suite struct GoldenFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/golden").standardizedFileURL

    func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Self.folder.appendingPathComponent(name))
    }

    /// Decoding a fixture into the typed message and encoding it again gives the same JSON.
    func assertRoundTrip<T: Codable>(_ name: String, as type: T.Type) throws {
        let data = try fixture(name)
        let decoded = try WireCoding.decode(T.self, from: data)
        let reencoded = try WireCoding.encode(decoded)
        #expect(try WireCoding.decode(JSONValue.self, from: reencoded) == WireCoding.decode(JSONValue.self, from: data), "\(name)")
    }

    @Test func requestsRoundTrip() throws {
        try assertRoundTrip("pick-request.json", as: RequestEnvelope<PickRequest>.self)
        try assertRoundTrip("load-request.json", as: RequestEnvelope<LoadRequest>.self)
        try assertRoundTrip("open-request.json", as: RequestEnvelope<OpenRequest>.self)
        try assertRoundTrip("stream-credit.json", as: RequestEnvelope<StreamCredit>.self)
        try assertRoundTrip("register-app-request.json", as: RequestEnvelope<RegisterAppRequest>.self)
        try assertRoundTrip("choose-request.json", as: RequestEnvelope<ChooseRequest>.self)
        try assertRoundTrip("auth-request.json", as: RequestEnvelope<AuthorizationRequest>.self)
        try assertRoundTrip("set-access-request.json", as: RequestEnvelope<SetAccessRequest>.self)
        try assertRoundTrip("fetch-assets-request.json", as: RequestEnvelope<FetchAssetsRequest>.self)
        try assertRoundTrip("audit-request.json", as: RequestEnvelope<AuditRequest>.self)
        try assertRoundTrip("pick-limits-request.json", as: RequestEnvelope<PickRequest>.self)
    }

    @Test func repliesRoundTrip() throws {
        try assertRoundTrip("pick-started-event.json", as: ReplyEnvelope<PickStarted>.self)
        try assertRoundTrip("pick-reply.json", as: ReplyEnvelope<PickResponse>.self)
        try assertRoundTrip("chunk-reply.json", as: ReplyEnvelope<ChunkHeader>.self)
        try assertRoundTrip("load-completion.json", as: ReplyEnvelope<StreamCompletion>.self)
        try assertRoundTrip("open-reply.json", as: ReplyEnvelope<FileTicket>.self)
        try assertRoundTrip("error-reply.json", as: ReplyEnvelope<ErrorBody>.self)
        try assertRoundTrip("pending-reply.json", as: ReplyEnvelope<PendingPicksResponse>.self)
        try assertRoundTrip("prompt-shown-event.json", as: ReplyEnvelope<PromptShown>.self)
        try assertRoundTrip("status-reply.json", as: ReplyEnvelope<StatusResponse>.self)
        try assertRoundTrip("change-event.json", as: ReplyEnvelope<AuthorizationChange>.self)
        try assertRoundTrip("library-change-event.json", as: ReplyEnvelope<LibraryChange>.self)
        try assertRoundTrip("audit-reply.json", as: ReplyEnvelope<AuditResponse>.self)
        try assertRoundTrip("assets-limits-reply.json", as: ReplyEnvelope<ListAssetsResponse>.self)
    }

    @Test func everyFixtureIsChecked() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count == 24)
    }

    /// The delivery socket's answer lines (not envelopes: one JSON object and a newline).
    @Test func deliveryAnswersSayOkWithTheSizeOrWhy() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(DeliveryAnswer.delivered(fileSize: 31859)), as: UTF8.self)
                == #"{"fileSize":31859,"status":"ok"}"#)
        let refusal = DeliveryAnswer.refused(LightboxError(.tokenUnknown, "This delivery ticket is not known."))
        #expect(String(decoding: try encoder.encode(refusal), as: UTF8.self)
                == #"{"code":"tokenUnknown","message":"This delivery ticket is not known.","status":"error"}"#)
    }

    @Test func pickRequestCarriesTheConfiguration() throws {
        let request = try WireCoding.decode(RequestEnvelope<PickRequest>.self, from: fixture("pick-request.json"))
        #expect(request.op == .pick)
        #expect(request.body.configuration.selectionLimit == 2)
        #expect(request.body.configuration.filter == .any([.images, .not(.videos)]))
        #expect(request.body.configuration.selection == .ordered)
        #expect(request.body.configuration.photoLibrary)
    }

    @Test func auditReplyIsNewestFirstWithACursor() throws {
        let reply = try WireCoding.decode(ReplyEnvelope<AuditResponse>.self, from: fixture("audit-reply.json"))
        #expect(reply.body.entries.map(\.id) == [119, 117])
        #expect(reply.body.entries[0].bytes == 32768)
        #expect(reply.body.entries[1].bytes == nil && reply.body.entries[1].asset == nil)
        // A line standing for repeats says how many and until when; a single one says neither.
        #expect(reply.body.entries[1].times == 40 && reply.body.entries[1].lastAt == Date(timeIntervalSince1970: 1_767_268_801))
        #expect(reply.body.entries[0].times == nil && reply.body.entries[0].lastAt == nil)
        #expect(reply.body.next == 117)
    }

    @Test func errorReplyCarriesCodeAndSentence() throws {
        let reply = try WireCoding.decode(ReplyEnvelope<ErrorBody>.self, from: fixture("error-reply.json"))
        #expect(reply.status == .error)
        #expect(reply.body.code == .tokenExpired)
        #expect(reply.body.message.hasSuffix("ask for a new pick."))
    }
}

@Suite struct EnvelopeTests {
    @Test func emptyConfigurationTakesPhotoKitDefaults() throws {
        let body = try RequestEnvelope<PickRequest>.decodeBody(from: Data(#"{"v":1,"id":"a","op":"picker.pick"}"#.utf8))
        #expect(body.configuration == PickerConfiguration())
        #expect(body.configuration.selectionLimit == 1)
        #expect(body.configuration.photoLibrary == false)
        #expect(body.configuration.selection == .default)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let header = #"{"v":1,"id":"a","op":"provider.load","extra":true,"body":{"token":"t","future":[1,2]}}"#
        let body = try RequestEnvelope<LoadRequest>.decodeBody(from: Data(header.utf8))
        #expect(body.token == "t")
        #expect(body.type == nil)
    }

    @Test func missingRequiredFieldIsAnError() {
        #expect(throws: DecodingError.self) {
            _ = try RequestEnvelope<LoadRequest>.decodeBody(from: Data(#"{"v":1,"id":"a","op":"provider.load","body":{}}"#.utf8))
        }
    }

    @Test func headOfMalformedRequestKeepsWhatItCan() throws {
        let head = try WireCoding.decode(RequestHead.self, from: Data(#"{"id":"x","op":7}"#.utf8))
        #expect(head.id == "x")
        #expect(head.op == nil)
        #expect(head.v == nil)
    }

    @Test func documentedErrorCodesAreDistinct() {
        #expect(Set(ErrorCode.documented).count == ErrorCode.documented.count)
        #expect(ErrorCode.documented.contains(.tokenRevoked))
    }

    @Test func principalsRoundTripThroughUserID() {
        for principal in [Principal.app("demo"), .owner, .service("picker")] {
            #expect(Principal(userId: principal.userId) == principal)
        }
        #expect(Principal(userId: "app:") == nil)
        #expect(Principal(userId: "root") == nil)
    }
}

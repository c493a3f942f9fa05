import Foundation
import Testing
@testable import LightboxProtocol

/// `RequestHeadScanner` against JSONDecoder: on every frame, either the scanner gives up or both
/// read the same head; and the scanner reads the frames clients actually send.
@Suite struct RequestHeadTests {
    func decoded(_ frame: Data) -> RequestHead? {
        try? WireCoding.decode(RequestHead.self, from: frame)
    }

    /// Whatever the scanner reads, JSONDecoder reads the same way.
    func expectAgreement(_ frame: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let scanned = RequestHeadScanner.scan(frame) else { return }
        #expect(scanned == decoded(frame), "scanned \(scanned) from \(String(decoding: frame, as: UTF8.self))",
                sourceLocation: sourceLocation)
    }

    static let sent: [Data] = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return [
            try! WireCoding.encode(RequestEnvelope(id: "r-1", op: .ping, body: Empty())),
            try! WireCoding.encode(RequestEnvelope(id: "bench-3-17-AB12CD34", op: .fetchAssets,
                                                   body: FetchAssetsRequest(localIdentifiers: ["A/L0/001", "B\\2"]))),
            try! WireCoding.encode(RequestEnvelope(id: "q", op: .queryAssets, body: AssetQuery(limit: 20))),
            try! WireCoding.encode(RequestEnvelope(id: "s", op: .authorizationStatus, body: StatusRequest(level: .readWrite))),
            try! encoder.encode(RequestEnvelope(id: "pretty", op: .listAssets, body: ListAssetsRequest(limit: 50))),
        ]
    }()

    @Test func readsWhatClientsSendAsJSONDecoderDoes() throws {
        for frame in Self.sent {
            let scanned = try #require(RequestHeadScanner.scan(frame), "gave up on \(String(decoding: frame, as: UTF8.self))")
            #expect(scanned == decoded(frame))
            #expect(scanned.v == protocolVersion && scanned.id?.isEmpty == false && scanned.op != nil)
            #expect(try RequestHead.read(from: frame) == scanned)
        }
    }

    @Test func givesUpOnWhatItDoesNotReadPlainlyAndAgreesOnTheRest() throws {
        let frames = [
            #"{"v":1,"id":"a","op":"service.ping","body":{}}"#, #" {"v" : 1 , "id":"a" ,"op":"x"} "#, "{}", "{ }",
            #"{"v":1,"id":"a","op":"x",}"#, #"{"v":01,"id":"a"}"#, #"{"v":1.0,"id":"a"}"#, #"{"v":1e0,"id":"a"}"#,
            #"{"v":-0,"id":"a"}"#, #"{"v":99999999999999999999,"id":"a"}"#, #"{"v":"1","id":"a"}"#, #"{"v":null}"#,
            #"{"v":1,"v":2}"#, #"{"id":"a","id":"b"}"#, #"{"op":"a","op":"b"}"#, #"{"i\u0064":"a"}"#, #"{"id":"a\"b"}"#,
            #"{"id":"a","body":"\u0000"}"#, #"{"id":"a","body":"x\ty"}"#, "{\"id\":\"a\tb\"}", #"{"id":"é"}"#,
            #"{"id":"a"} x"#, #"{"id":"a"}{"#, #"{"id":"a","body":{]}"#, #"{"id":"a","body":[1,2,]}"#,
            #"{"id":"a","body":tru}"#, #"{"id":"a","body":nulll}"#, #"{"id":"a","body":-}"#, #"{"id":"a","body":1.}"#,
            #"{"id":"a","body":1e}"#, #"{"id":"a","body":.5}"#, #"{"id":"a","body":+1}"#, #"{"id":"a","body":[-0.5e+7,0,true,false,null,"\/"]}"#,
            #"{"id":"a","body":{"x":{"y":[{"z":[]}]}}}"#, #"{"id":"a" "op":"b"}"#, #"{"id":"a",,"op":"b"}"#, #"{"id"}"#, "[1]", "", " ",
            #"{"v":1,"id":"a","op":"x","body":{"k":1e400}}"#, #"{"id":1}"#, #"{"op":{}}"#, "{\"id\":\"a\"}\u{0}",
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
            #"{"id":"a","body":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
        ]
        for frame in frames { expectAgreement(Data(frame.utf8)) }
        // Its limits fall back to JSONDecoder rather than failing.
        #expect(RequestHeadScanner.scan(Data(#"{"id":"é"}"#.utf8)) == nil)
        #expect(try RequestHead.read(from: Data(#"{"id":"é"}"#.utf8)).id == "é")
        #expect(RequestHeadScanner.scan(Data(#"{"id":"a\"b"}"#.utf8)) == nil)
        #expect(try RequestHead.read(from: Data(#"{"id":"a\"b"}"#.utf8)).id == "a\"b")
        #expect(throws: (any Error).self) { try RequestHead.read(from: Data(#"{"id":"a","body":{]}"#.utf8)) }
    }

    /// Frames a byte or a few away from real ones: broken, or still JSON in odd ways.
    @Test func agreesOnTwentyThousandMutatedFrames() {
        // A failing frame is printed whole, so a random one is as good as a seeded one.
        var generator = SystemRandomNumberGenerator()
        var scannedCount = 0
        for iteration in 0..<20_000 {
            let frame = Self.sent[iteration % Self.sent.count].mutated(using: &generator)
            if RequestHeadScanner.scan(frame) != nil { scannedCount += 1 }
            expectAgreement(frame)
        }
        // Not vacuous: many mutations leave a frame the scanner reads.
        #expect(scannedCount > 1000)
    }
}

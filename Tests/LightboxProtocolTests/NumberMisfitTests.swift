import Foundation
import LightboxProtocol
import Testing

/// A number outside its member's type (`2^63` for an Int64, `1e30` or `10.5` for an Int, `1e999`
/// for a Double) is refused naming the member, where JSONDecoder on Linux says only "The given data
/// was not valid JSON".
@Suite struct NumberMisfitTests {
    static func header(limits: String) -> Data {
        Data(#"{"v":1,"id":"1","op":"picker.pick","body":{"configuration":{"limits":{\#(limits)}}}}"#.utf8)
    }

    @Test(arguments: [
        (#""maxFileSize":9223372036854775808"#, "maxFileSize", "9223372036854775808 is not a whole number that fits Int64"),
        (#""minPixels":1e30"#, "minPixels", "1e30 is not a whole number that fits Int"),
        (#""maxPixels":10.5"#, "maxPixels", "10.5 is not a whole number that fits Int"),
        (#""maxDuration":1e999"#, "maxDuration", "1e999 is not a number of Double"),
    ])
    func aNumberOutsideItsTypeNamesItsMember(_ limits: String, _ member: String, _ sentence: String) throws {
        do {
            _ = try RequestEnvelope<PickRequest>.decodeBody(from: Self.header(limits: limits))
            Issue.record("\(limits) was decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["body", "configuration", "limits", member])
            #expect(context.debugDescription == sentence)
        }
    }

    @Test func numbersJSONDecoderReadsAreStillRead() throws {
        // 1.0 and 1e3 are whole numbers JSONDecoder reads as an Int: no misfit.
        let body = try RequestEnvelope<PickRequest>.decodeBody(from: Self.header(limits: #""minPixels":1.0,"maxPixels":1e3"#))
        #expect(body.configuration.limits?.minPixels == 1 && body.configuration.limits?.maxPixels == 1000)
    }

    @Test func otherInvalidJSONIsStillInvalidJSON() {
        #expect(throws: DecodingError.self) {
            _ = try RequestEnvelope<PickRequest>.decodeBody(from: Data(#"{"v":1,"id":"1","op":"picker.pick","body":{"configuration":"#.utf8))
        }
    }
}

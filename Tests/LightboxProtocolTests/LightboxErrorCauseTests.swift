import Foundation
import LightboxProtocol
import Testing

/// An error's cause is for the log: it never travels and never makes two wire errors differ.
@Suite struct LightboxErrorCauseTests {
    struct Underneath: Error, LightboxErrorConvertible {
        var lightboxError: LightboxError { LightboxError(.badMedia, "The picker could not read this.", cause: self) }
    }

    struct Unknown: Error {}

    @Test func theCauseIsNotEncodedNorCompared() throws {
        let error = LightboxError(.badMedia, "The picker could not read this.", details: ["asset": "A"], cause: Underneath())
        let encoded = String(decoding: try JSONEncoder().encode(error), as: UTF8.self)
        #expect(!encoded.contains("cause"))
        let decoded = try JSONDecoder().decode(LightboxError.self, from: Data(encoded.utf8))
        #expect(decoded == error)
        #expect(decoded.cause == nil)
        #expect(Set([error, decoded]).count == 1)
    }

    @Test func conversionUsesTheErrorsOwnFormElseInternal() {
        let converted = LightboxError(converting: Underneath(), fallback: "unused")
        #expect(converted.code == .badMedia)
        #expect(converted.cause is Underneath)
        let wire = LightboxError(.notFound, "No asset.")
        #expect(LightboxError(converting: wire, fallback: "unused") == wire)
        let unknown = LightboxError(converting: Unknown(), fallback: "lightbox-picker failed to handle x; see its log.")
        #expect(unknown.code == .internal)
        #expect(unknown.message == "lightbox-picker failed to handle x; see its log.")
        #expect(unknown.cause is Unknown)
    }
}

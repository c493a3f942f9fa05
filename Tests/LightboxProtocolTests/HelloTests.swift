import LightboxProtocol
import Testing

/// `service.hello`'s launch id: short, plain ASCII, so a client cannot make the services keep much.
@Suite struct HelloTests {
    @Test func aLaunchIsOneToSixtyFourPlainCharacters() {
        #expect(Hello.isValid(launch: "0f3a9c2b7d1e4f6a8b0c2d4e6f8a0b1c"))
        #expect(Hello.isValid(launch: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        #expect(Hello.isValid(launch: "a_b"))
        #expect(Hello.isValid(launch: String(repeating: "x", count: 64)))
        #expect(!Hello.isValid(launch: ""))
        #expect(!Hello.isValid(launch: String(repeating: "x", count: 65)))
        for bad in ["a b", "a/b", "a.b", "é", "a\u{0}b", "\u{202E}ab"] { #expect(!Hello.isValid(launch: bad), "\(bad)") }
    }

    @Test func refusalsAreTypedKinds() {
        #expect(AuditOutcome.refused.isRefusal && AuditOutcome.refused("wrongApp").isRefusal && AuditOutcome.refused(.tokenExpired).isRefusal)
        #expect(!AuditOutcome.delivered.isRefusal && !AuditOutcome(rawValue: "refusedish").isRefusal)
        #expect(AuditOperation.assetReads.map(\.rawValue) == ["load", "open", "image", "video", "properties"])
    }
}

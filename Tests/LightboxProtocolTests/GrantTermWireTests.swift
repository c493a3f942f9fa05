import Foundation
import LightboxProtocol
import Testing

struct GrantTermWireTests {
    @Test func aTermOnTheWire() throws {
        // The body the Python client writes (its golden test has the same one).
        let body = #"{"app":"demo","readWrite":"full","term":{"until":"2026-12-01T18:00:00Z","then":"deny"}}"#
        let request = try WireCoding.decode(SetAccessRequest.self, from: Data(body.utf8))
        let term = try #require(request.term)
        #expect(term.until == Date(timeIntervalSince1970: 1_796_148_000))
        #expect(term.afterwards == .deny)
        let plain = try WireCoding.decode(SetAccessRequest.self, from: Data(#"{"app":"demo","readWrite":"full"}"#.utf8))
        #expect(plain.term == nil)
        #expect(throws: (any Error).self) {
            try WireCoding.decode(SetAccessRequest.self, from: Data(#"{"app":"demo","term":{"until":"soon"}}"#.utf8))
        }
    }

    @Test func spansAreANumberAndAUnit() {
        #expect(TimeSpan("90d")?.duration == .seconds(90 * 86_400))
        #expect(TimeSpan("12h")?.duration == .seconds(12 * 3_600))
        #expect(TimeSpan("30m")?.duration == .seconds(1_800))
        #expect(TimeSpan("5s")?.duration == .seconds(5))
        #expect(TimeSpan("0")?.duration == .zero)
        for text in ["", "d", "-1d", "1.5h", "1w", "90", "0d", "99999999999999d", "1 d"] {
            #expect(TimeSpan(text) == nil, "\(text) was read as a span")
        }
    }

    @Test func aTermReturnsToAskingAgainUnlessItSaysDeny() {
        #expect(GrantTerm(until: .now).afterwards == .askAgain)
        #expect(GrantTerm(until: .now, then: .deny).afterwards.status == .denied)
        #expect(GrantTerm.Afterwards.askAgain.status == .notDetermined)
        #expect(AuthorizationStatus.allCases.filter(\.isGrant) == [.authorized, .limited])
    }
}

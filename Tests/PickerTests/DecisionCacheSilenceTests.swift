import Foundation
import LightboxProtocol
import Testing
@testable import Picker

/// The picker's copy of auth's decisions is used only while the follow stream speaks: a picker
/// that was stopped (or starved) longer than auth waits for a confirmation asks again.
@Suite struct DecisionCacheSilenceTests {
    let answer = AppDecisions(app: "app", version: 10, decisions: [LibraryAction.read.rawValue: LibraryDecision(
        allowed: true, scope: .all, status: .authorized)], selection: [])

    @Test func aCopyIsUsedOnlyWhileTheStreamSpeaks() async throws {
        let cache = DecisionCache()
        cache.startFollowing(at: 10, connection: 0)
        cache.store(answer)
        #expect(cache.decision(.read, for: "app", connection: 0)?.scope == .all)
        // Keep-alives keep it in use.
        for _ in 0..<4 {
            try await Task.sleep(for: DecisionCache.longestSilence / 2)
            cache.heard()
            #expect(cache.decision(.read, for: "app", connection: 0)?.scope == .all)
        }
        // Silent for longer: not used, though nothing was announced, until the stream speaks again.
        try await Task.sleep(for: DecisionCache.longestSilence + .milliseconds(100))
        #expect(cache.decision(.read, for: "app", connection: 0) == nil)
        cache.heard()
        #expect(cache.decision(.read, for: "app", connection: 0)?.scope == .all)
        // An ended stream drops everything.
        cache.stopFollowing()
        cache.heard()
        #expect(cache.decision(.read, for: "app", connection: 0) == nil)
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import Testing
@testable import Surface

/// The pieces that keep the surface the owner's alone, and the words on the sheet.
@Suite struct SurfaceSecurityTests {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("surface-\(UUID().uuidString)")

    @Test func aLoginSecretWorksOnceAndIsStoredOnlyAsItsHash() throws {
        defer { try? FileManager.default.removeItem(at: data) }
        let login = SurfaceLogin(dataDirectory: data)
        let secret = try login.mint()
        #expect(secret.count >= 43, "256 bits, base64url")
        let stored = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("surface/logins").path)
        #expect(stored.count == 1 && !stored[0].contains(secret))
        let mode = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("surface/logins/\(stored[0])").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(login.redeem(secret))
        #expect(!login.redeem(secret), "a secret works once")
        #expect(!login.redeem(try login.mint() + "x"))
        #expect(!login.redeem("../../keys/owner"), "names that are not secrets never reach the file system")
        #expect(!login.redeem(""))
    }

    @Test func unusedSecretsAreBoundedTheNewestStayValid() throws {
        defer { try? FileManager.default.removeItem(at: data) }
        let login = SurfaceLogin(dataDirectory: data)
        let secrets = try (0..<(SurfaceLogin.unusedLimit + 8)).map { _ in try login.mint() }
        let stored = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("surface/logins").path)
        #expect(stored.count == SurfaceLogin.unusedLimit)
        #expect(login.redeem(secrets.last!), "the newest works")
    }

    @Test func sessionsCarryTheirOwnCSRFToken() async {
        let sessions = SessionStore()
        let one = await sessions.create()
        let two = await sessions.create()
        #expect(one.csrf != two.csrf && one.id != two.id)
        #expect(await sessions.session(one.id)?.csrf == one.csrf)
        #expect(await sessions.session("made-up") == nil)
        #expect(await sessions.session(nil) == nil)
        #expect(constantTimeEquals(one.csrf, one.csrf))
        #expect(!constantTimeEquals(one.csrf, two.csrf))
        #expect(!constantTimeEquals(one.csrf, String(one.csrf.dropLast())))
    }

    @Test func theHostCheckAllowsOnlyThisSurface() {
        let guardian = SurfaceGuard(port: 7710, sessions: SessionStore())
        #expect(guardian.allowedHosts == ["127.0.0.1:7710", "localhost:7710", "[::1]:7710"])
        #expect(SurfaceGuard.isOpen("/login") && SurfaceGuard.isOpen("/static/surface.js"))
        #expect(!SurfaceGuard.isOpen("/") && !SurfaceGuard.isOpen("/api/state") && !SurfaceGuard.isOpen("/loginx"))
        #expect(SurfaceGuard.contentSecurityPolicy.contains("frame-ancestors 'none'"))
        #expect(!SurfaceGuard.contentSecurityPolicy.contains("unsafe"))
    }

    @Test func theSheetSaysWhatTheAppWantsInWords() {
        #expect(PickDescription.sentence(appName: "Demo App", PickerConfiguration(selectionLimit: 3, selection: .ordered))
            == "Demo App wants up to 3 photos or videos, in order")
        #expect(PickDescription.sentence(appName: "Cam", PickerConfiguration(selectionLimit: 1, filter: .images)) == "Cam wants one photo")
        #expect(PickDescription.sentence(appName: "Reel", PickerConfiguration(selectionLimit: 0, filter: .any([.videos, .livePhotos])))
            == "Reel wants any number of videos or Live Photos")
    }

    @Test func pagesEscapeWhatComesFromApps() {
        #expect(HTML.escape("<script>alert(\"x\")</script> & 'y'") == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
        let state = OwnerFeed.State(picks: [], prompts: [OwnerPrompt(prompt: "p", kind: .authorization, app: "a", appName: "<b>Evil</b>",
                                                                     level: .readWrite, usageDescription: nil, selection: [], createdAt: Date())])
        #expect(Pages.queue(state).contains("&lt;b&gt;Evil&lt;/b&gt;") && !Pages.queue(state).contains("<b>Evil"))
    }
}

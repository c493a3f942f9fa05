import Foundation
import Glibc
import LightboxClient
import Testing
import TestServers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The owner's web surface given both pickers of a library (`--picker-endpoint first,second`) goes
/// on at the second when the first is killed, as apps' failover connections do.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled && SeaweedFSServer.isInstalled, "needs PostgreSQL and SeaweedFS (make deps)"))
struct SurfaceFailoverTests {
    @Test func theOwnersPagesGoOnAtTheSecondPickerWhenTheFirstIsKilled() async throws {
        let pickers = try await SharedLibraryPickers.start()
        defer { pickers.stop() }
        let harness = pickers.harness
        let port = try FreePorts.take(1)[0]
        let surface = Process()
        surface.executableURL = ServiceHarness.binaries.appendingPathComponent("lightbox-surface")
        surface.arguments = ["--data", harness.directory.dataDirectory.path, "--auth-endpoint", harness.directory.authEndpoint,
                             "--picker-endpoint", "\(harness.directory.pickerEndpoint),\(pickers.second.endpoint)",
                             "--listen", "127.0.0.1:\(port)", "--open-command", "none", "--log-level", "warning"]
        try surface.run()
        defer { surface.terminate(); surface.waitUntilExit() }

        _ = try await harness.registerApp("after-kill")
        let page = try await OwnerPages.logIn(at: port, dataDirectory: harness.directory.dataDirectory)
        #expect(try await page.assetCount() == 7)
        PickerFailoverTests.kill(harness.picker)
        let killed = ContinuousClock.now
        #expect(try await page.assetCount() == 7, "the library as the surface shows it after the first picker was killed")
        print("surface failover: the first page after the kill took \(ContinuousClock.now - killed)")

        // The owner's pick sheet goes on too: a pick filed at the second picker is listed.
        async let items = PhotoPicker(connection: try await pickers.appAtSecond("after-kill"))
            .pick(ServiceHarness.preciseLocation, timeout: .seconds(120))
        var pending: [(pick: String, app: String)] = []
        // The feed's long poll at the killed picker fails over too; a minute tells "never" from "slowly".
        for _ in 0..<300 where pending.isEmpty {
            pending = try await page.pendingPicks()
            if pending.isEmpty { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(pending.map(\.app) == ["after-kill"])
        let pick = try #require(pending.first).pick
        try await OwnerSurface(picker: try await pickers.ownerAtSecond()).cancel(pick)
        #expect(try await items.isEmpty)
    }
}

/// The surface's JSON pages as the owner's browser reads them: logged in with the one-time address
/// the surface wrote, its session cookie sent with every request.
struct OwnerPages {
    let base: String
    let cookie: String
    let session: URLSession

    /// Stops at the login's redirect, to read the session cookie it sets.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    static func logIn(at port: Int, dataDirectory: URL) async throws -> OwnerPages {
        let file = SurfaceLogin(dataDirectory: dataDirectory).loginURLFile
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: file.path) { try await Task.sleep(for: .milliseconds(100)) }
        let login = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(login.hasPrefix("http://127.0.0.1:\(port)/"), "\(login)")
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        var lastError: (any Error)?
        for _ in 0..<600 {
            do {
                let (_, response) = try await session.data(for: URLRequest(url: try #require(URL(string: login))))
                let header = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") ?? ""
                let cookie = String(header.split(separator: ";").first ?? "")
                guard cookie.hasPrefix("lightbox_session=") else { throw HarnessError("the login set no session cookie: \(header)") }
                return OwnerPages(base: "http://127.0.0.1:\(port)", cookie: cookie, session: session)
            } catch let error as URLError {
                // Not serving yet.
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw HarnessError("the surface did not serve its login address: \(String(describing: lastError))")
    }

    func json(_ path: String) async throws -> Any {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        request.timeoutInterval = 120
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw HarnessError("GET \(path) answered \(status): \(String(decoding: data, as: UTF8.self))") }
        return try JSONSerialization.jsonObject(with: data)
    }

    func assetCount() async throws -> Int {
        let page = try await json("/api/assets?limit=100") as? [String: Any]
        return (page?["assets"] as? [Any])?.count ?? -1
    }

    /// The picks the owner's pages show as waiting.
    func pendingPicks() async throws -> [(pick: String, app: String)] {
        let reply = try await json("/api/state") as? [String: Any]
        return ((reply?["picks"] as? [[String: Any]]) ?? []).compactMap { pick in
            guard let id = pick["pick"] as? String, let app = pick["app"] as? String else { return nil }
            return (id, app)
        }
    }
}

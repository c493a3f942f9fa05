import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import TestServers
import Testing

/// lightbox-auth holds no state outside PostgreSQL: after it is killed, a new auth process with a
/// data folder of its own (only the keys copied: the same service key, so apps and the picker
/// trust it) takes over on the same endpoint, and every grant, selection and audit line is there.
/// Always on PostgreSQL: the test database's server when the suites run on it, else a database of
/// its own on that server.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
struct AuthTakeoverTests {
    @Test func aNewAuthProcessTakesOverWithNothingGrantedLost() async throws {
        let harness = try await ServiceHarness.start(authOptions: TestDatabase.isPostgres ? [] : ["--database", try await TestDatabase.freshPostgresURL()])
        defer { harness.stop() }
        let database = try #require(harness.authArguments.firstIndex(of: "--database").map { harness.authArguments[$0 + 1] })
        try await harness.registerApp("keeper", preventAutomaticLimitedAccessAlert: true)
        try await harness.registerApp("viewer", preventAutomaticLimitedAccessAlert: true)
        let settings = try await harness.settings()
        let everything = try await harness.owner().assets().map(\.identifier)
        try #require(everything.count >= 3)
        let chosen = Array(everything.prefix(2))

        // A limited selection set by the owner, and full access given through a prompt's answer.
        try await settings.setAccess(SetAccessRequest(app: "keeper", readWrite: .limited, selection: chosen))
        let viewer = try await harness.library(for: "viewer")
        async let asked = viewer.requestAccess(for: .readWrite)
        try await settings.answer(try await harness.openPrompt(settings, app: "viewer").prompt, .full)
        #expect(try await asked.status == .authorized)
        let keeper = try await harness.library(for: "keeper")
        #expect(Set(try await keeper.fetchAssets(withLocalIdentifiers: everything).map(\.identifier)) == Set(chosen))
        let accessBefore = try await settings.apps().sorted { $0.app < $1.app }
        let tokenBefore = try await keeper.changes(after: 0).token

        // The old auth dies; the new one starts from a data folder that holds only the keys.
        kill(harness.auth.processIdentifier, SIGKILL)
        harness.auth.waitUntilExit()
        let folder = harness.root.appendingPathComponent("takeover")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: harness.directory.dataDirectory.appendingPathComponent("keys"), to: folder.appendingPathComponent("keys"))
        let replacement = try Self.startAuth(harness, data: folder, database: database)
        defer { Self.stop(replacement) }

        // Everything granted is there, read from PostgreSQL by the new process.
        let newSettings = try await harness.settings()
        let accessAfter = try await Self.eventually { try await newSettings.apps().sorted { $0.app < $1.app } }
        #expect(accessAfter == accessBefore)
        #expect(accessAfter.first { $0.app == "keeper" }?.readWrite == .limited && accessAfter.first { $0.app == "keeper" }?.selectionCount == 2)
        #expect(accessAfter.first { $0.app == "viewer" }?.readWrite == .authorized)
        let newKeeper = try await harness.library(for: "keeper")
        #expect(try await newKeeper.changes(after: 0).token == tokenBefore)
        let settingsLines = try await newSettings.audit(AuditRequest(app: "keeper", operation: AuditOperation.settings.rawValue)).entries
        #expect(settingsLines.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("auth/auth.sqlite").path))

        // The picker follows the new auth: reads obey the grants, and a change made through the
        // new auth is in force when it is acknowledged.
        #expect(Set(try await Self.eventually { try await keeper.fetchAssets(withLocalIdentifiers: everything) }.map(\.identifier)) == Set(chosen))
        #expect(try await viewer.fetchAssets(withLocalIdentifiers: everything).count == everything.count)
        try await Self.eventually { try await newSettings.setAccess(SetAccessRequest(app: "keeper", readWrite: SetAccessRequest.ReadWrite.none)) }
        #expect(try await keeper.fetchAssets(withLocalIdentifiers: everything).isEmpty)
        #expect(try await newKeeper.changes(after: 0).token > tokenBefore)
    }

    @Test func aDatabaseThatGoesAwayGivesASentenceAndAuthKeepsServing() async throws {
        // A server of its own, as it is killed.
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let harness = try await ServiceHarness.start(importFolders: [], beforeStart: { harness in
            harness.authArguments = harness.authArguments.filter { !$0.hasPrefix("postgres://") && $0 != "--database" }
                + ["--database", server.url(database: try server.createDatabase())]
        })
        defer { harness.stop() }
        try await harness.registerApp("stranded")
        // Each of auth's database uses may wait 10 s for the server before giving up, and a loaded
        // machine has taken more than 30 s over the refusal: a longer wait still tells "never".
        let settings = try await harness.settings(timeout: .seconds(120))
        try await settings.setAccess(SetAccessRequest(app: "stranded", readWrite: .full))

        server.kill()
        do {
            _ = try await settings.setAccess(SetAccessRequest(app: "stranded", readWrite: SetAccessRequest.ReadWrite.none))
            Issue.record("a change was acknowledged with the database down")
        } catch let error as LightboxError {
            #expect([ErrorCode.timeout, .internal].contains(error.code), "\(error)")
            #expect(error.message.contains("database"), "\(error.message)")
        }
        // Still serving: what needs no database is answered.
        let owner = try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair())
        #expect(try await owner.request(.ping, Empty(), as: ServiceIdentity.self).service == "auth")
        #expect(harness.auth.isRunning)
    }

    /// lightbox-auth on `data`, on the harness's endpoint, its state in `database`.
    static func startAuth(_ harness: ServiceHarness, data: URL, database: String) throws -> Process {
        let process = Process()
        process.executableURL = ServiceHarness.binaries.appendingPathComponent("lightbox-auth")
        process.arguments = ["--data", data.path, "--log-level", "warning", "--endpoint", harness.directory.authEndpoint, "--database", database]
        let log = harness.root.appendingPathComponent("lightbox-auth-takeover.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.environment = StarterProcess.environmentForChild()
        try process.run()
        return process
    }

    static func stop(_ process: Process) {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// `operation`'s result once it stops timing out (the new auth is starting, the picker
    /// reconnecting to it).
    @discardableResult
    static func eventually<T>(_ operation: () async throws -> T) async throws -> T {
        for attempt in 1... {
            do {
                return try await operation()
            } catch let error as LightboxError where [ErrorCode.timeout, .cancelled].contains(error.code) && attempt < 100 {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        fatalError("unreachable")
    }
}

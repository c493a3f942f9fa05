import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Synchronization
import Testing

/// Acknowledged grants survive a crash: lightbox-auth is killed with SIGKILL at random moments
/// during 500 changes, restarted each time, and afterwards every acknowledged change is there.
@Suite(.serialized) struct DurabilityTests {
    @Test func acknowledgedGrantsSurviveSIGKILL() async throws {
        let harness = try ServiceHarness(importFolders: [])
        defer { harness.stop() }
        try await harness.keepAuthStateInTestDatabase()
        try harness.startAuth()
        // Auth writes its own key, then the owner's: wait for the one read next.
        _ = try await harness.directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        let apps = (0..<10).map { "durable-\($0)" }
        let registry = AppRegistryClient(auth: try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair()))
        for app in apps {
            let key = try CurveKeyPair.loadOrCreate(at: harness.directory.keys.appKeyURL(app))
            try await retrying { try await registry.register(AppManifest(id: app, name: app, publicKey: key.publicKey)) }
        }
        let settings = OwnerSettings(auth: try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair(), timeout: .seconds(2)))

        // Kills at random moments while the changes run.
        let running = Mutex(true)
        let kills = Mutex(0)
        let killer = Task.detached {
            while running.withLock({ $0 }) {
                try await Task.sleep(for: .milliseconds(Int.random(in: 150...600)))
                guard running.withLock({ $0 }), let auth = harness.auth, auth.isRunning else { continue }
                kill(auth.processIdentifier, SIGKILL)
                kills.withLock { $0 += 1 }
            }
        }

        struct Acknowledged { var readWrite: AuthorizationStatus; var selection: [String]; var token: Int64 }
        var acknowledged: [String: Acknowledged] = [:]
        var tokens: [String: Set<Int64>] = [:]
        let settingsCycle: [SetAccessRequest.ReadWrite] = [.full, .limited, .none, .restricted, .limited]
        for index in 0..<500 {
            let app = apps[index % apps.count]
            let setting = settingsCycle[(index / apps.count) % settingsCycle.count]
            let selection = setting == .limited ? ["ASSET-\(index)/L0/001", "ASSET-\(index + 1)/L0/001"] : nil
            let request = SetAccessRequest(app: app, readWrite: setting, selection: selection)
            // Retry until acknowledged: a change whose answer was lost may or may not be on disk,
            // so the test only counts changes it saw acknowledged.
            let response = try await retrying(harness: harness) { try await settings.setAccess(request) }
            let previous = acknowledged[app]
            acknowledged[app] = Acknowledged(readWrite: response.access.readWrite,
                                             selection: setting == .limited ? selection! : (previous?.selection ?? []),
                                             token: response.token)
            tokens[app, default: []].insert(response.token)
        }
        running.withLock { $0 = false }
        _ = await killer.result
        print("durability: \(kills.withLock { $0 }) SIGKILLs during 500 acknowledged changes")
        #expect(kills.withLock { $0 } >= 3)

        // One more crash, then check every app against its last acknowledged change.
        if let auth = harness.auth, auth.isRunning { kill(auth.processIdentifier, SIGKILL) }
        harness.auth.waitUntilExit()
        try harness.startAuth()
        for app in apps {
            let expected = try #require(acknowledged[app])
            let access = try await retrying { try await settings.apps().first { $0.app == app } }
            #expect(access?.readWrite == expected.readWrite, "\(app)")
            #expect(access?.selectionCount == expected.selection.count, "\(app)")
            let library = PhotoLibrary(auth: try await harness.directory.connectToAuth(as: try harness.directory.appKeyPair(app), timeout: .seconds(3)),
                                       picker: try await harness.directory.connectToAuth(as: try harness.directory.appKeyPair(app)))
            let log = try await retrying { try await library.changes(after: 0) }
            let logged = Set(log.changes.map(\.token))
            #expect(tokens[app]!.subtracting(logged).isEmpty, "\(app): acknowledged changes missing from the log")
            #expect(log.token == expected.token, "\(app)")
        }
    }

    /// The owner's record of every change: lightbox-auth is killed with SIGKILL right after a change
    /// is acknowledged (when a buffered audit line would still be in memory), restarted, and
    /// afterwards every acknowledged change has its `settings` line. Each change is told apart by
    /// its selection's length, which the line carries as its asset count.
    @Test func acknowledgedChangesKeepTheirAuditLinesThroughSIGKILL() async throws {
        let harness = try ServiceHarness(importFolders: [])
        defer { harness.stop() }
        try await harness.keepAuthStateInTestDatabase()
        try harness.startAuth()
        // Auth writes its own key, then the owner's: wait for the one read next.
        _ = try await harness.directory.keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        let app = "audited"
        let registry = AppRegistryClient(auth: try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair()))
        let key = try CurveKeyPair.loadOrCreate(at: harness.directory.keys.appKeyURL(app))
        try await retrying { try await registry.register(AppManifest(id: app, name: app, publicKey: key.publicKey)) }
        let settings = OwnerSettings(auth: try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair(), timeout: .seconds(2)))

        var acknowledged: [Int] = []
        for round in 0..<5 {
            for step in 0..<10 {
                let length = round * 10 + step + 1
                let request = SetAccessRequest(app: app, readWrite: .limited, selection: (0..<length).map { "ASSET-\($0)/L0/001" })
                _ = try await retrying(harness: harness) { try await settings.setAccess(request) }
                acknowledged.append(length)
            }
            let auth = try #require(harness.auth)
            kill(auth.processIdentifier, SIGKILL)
            auth.waitUntilExit()
            try harness.startAuth()
        }

        let lines = try await retrying(harness: harness) {
            try await settings.audit(AuditRequest(app: app, operation: AuditOperation.settings.rawValue, limit: 10_000)).entries
        }
        let audited = Set(lines.filter { $0.outcome == AuditOutcome.settings(readWrite: .limited, addOnly: .notDetermined).rawValue }.map(\.assetCount))
        let missing = acknowledged.filter { !audited.contains($0) }
        #expect(missing.isEmpty, "acknowledged changes without a settings line: \(missing)")
    }

    /// Runs `operation` until it succeeds, restarting lightbox-auth when it has died.
    @discardableResult
    func retrying<T>(harness: ServiceHarness? = nil, _ operation: () async throws -> T) async throws -> T {
        for attempt in 1... {
            do {
                return try await operation()
            } catch let error as LightboxError where [.timeout, .cancelled].contains(error.code) && attempt < 60 {
                if let harness, let auth = harness.auth, !auth.isRunning {
                    auth.waitUntilExit()
                    try harness.startAuth()
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        fatalError("unreachable")
    }
}

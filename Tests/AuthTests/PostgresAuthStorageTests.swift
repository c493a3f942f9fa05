import Foundation
import LightboxPostgres
import LightboxProtocol
import Logging
import Synchronization
import TestServers
import Testing
@testable import Auth

/// lightbox-auth's PostgreSQL storage against a real server (`initdb` in a temporary folder): the
/// same answers as the SQLite storage for the same requests, and change tokens that readers see in
/// order while several transactions write at once.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "PostgreSQL is not installed; run `make deps` to install postgresql"))
final class PostgresAuthStorageTests: Sendable {
    let server: PostgresServer
    let logger = { var logger = Logger(label: "test.auth.postgres"); logger.logLevel = .error; return logger }()

    init() async throws {
        server = try await PostgresServer.start()
    }

    deinit {
        server.stop()
    }

    func makeStorage() throws -> PostgresAuthStorage {
        PostgresAuthStorage(PostgresStorage(location: try PostgresLocation(url: server.url(database: server.createDatabase())),
                                            maximumConnections: 16, timeLimit: .seconds(300), logger: logger), logger: logger)
    }

    @Test func concurrentChangesCommitTokensInTheOrderReadersSeeThem() async throws {
        let storage = try makeStorage()
        try await storage.whileOpen {
            _ = try await storage.apply(AuthorizationStore.Update(readWrite: .limited), to: "busy")
            let (writers, changesEach) = (8, 25)
            let writing = Flag()
            let seen = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for change in 0..<changesEach {
                            _ = try await storage.apply(AuthorizationStore.Update(addedAssets: ["A-\(writer)-\(change)"]), to: "busy")
                        }
                        return []
                    }
                }
                // A watcher asking for what came after the last token it saw, as `auth.changes` does.
                group.addTask {
                    var (last, seen): (Int64, [Int64]) = (0, [])
                    var stillWriting = true
                    while stillWriting {
                        stillWriting = writing.isSet
                        let changes = try await storage.changes(of: "busy", since: last)
                        seen += changes.map(\.token)
                        last = changes.last?.token ?? last
                    }
                    return seen
                }
                var seen: [Int64] = []
                for _ in 0..<writers { seen += try await group.next() ?? [] }
                writing.clear()
                for try await tokens in group { seen += tokens }
                return seen
            }
            let all = try await storage.changes(of: "busy", since: 0).map(\.token)
            #expect(all.count == writers * changesEach + 1)
            // Had a later token become visible before an earlier one, the watcher would have skipped it.
            #expect(seen == all)
            // And no writer's addition was lost to another's.
            let expected = Set((0..<writers).flatMap { writer in (0..<changesEach).map { "A-\(writer)-\($0)" } })
            #expect(Set(try await storage.access(of: "busy").selection) == expected)
        }
    }

    @Test func bothStoragesGiveTheSameAnswers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("auth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try await Self.transcript(of: try SQLiteAuthStorage(at: folder.appendingPathComponent("auth.sqlite")))
        let storage = try makeStorage()
        var postgres: [String] = []
        try await storage.whileOpen { postgres = try await Self.transcript(of: storage) }
        #expect(postgres.count == sqlite.count)
        for (index, (expected, found)) in zip(sqlite, postgres).enumerated() {
            #expect(found == expected, "step \(index)")
        }
    }

    /// What a storage answers to one script of requests: apps, updates of access with their terms,
    /// selections and albums, location, ended terms, unused resets, audit pages and summaries.
    static func transcript(of storage: any AuthStorage) async throws -> [String] {
        var lines: [String] = []
        func note(_ value: Any) { lines.append(String(describing: value)) }
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let first = AppManifest(id: "first", name: "First", publicKey: String(repeating: "a", count: 40), usageReadWrite: "edit")
        note(try await storage.saveApp(first, registeredAt: now) as Any)
        note(try await storage.saveApp(AppManifest(id: "second", name: "Second", publicKey: first.publicKey), registeredAt: now) as Any)
        note(try await storage.saveApp(AppManifest(id: "second", name: "Second", publicKey: String(repeating: "b", count: 40)), registeredAt: now) as Any)
        note(try await storage.apps())
        note(try await storage.app(withPublicKey: first.publicKey) as Any)
        note(try await storage.app(withID: "nobody") as Any)
        try await storage.saveDesktopApp(DesktopAppRecord(app: "portal:org.example.Viewer", name: "Viewer", announcedAt: now))
        try await storage.saveDesktopApp(DesktopAppRecord(app: "portal:org.example.Viewer", name: "Image Viewer", announcedAt: now))
        note(try await storage.desktopApps().map { "\($0.app) \($0.name) \($0.announcedAt)" })

        let line: AuthorizationStore.AuditLine = { applied in
            AuditEntry(app: "first", operation: .settings, assetCount: applied.selectionCount,
                       outcome: .settings(readWrite: applied.access.readWrite, addOnly: applied.access.addOnly), at: now)
        }
        let term = GrantTerm(until: now.addingTimeInterval(3600))
        var update = AuthorizationStore.Update(readWrite: .limited, selection: ["A", "B", "C", "A"], albums: ["X", "Y"], term: term)
        note(try await storage.apply(update, to: "first", now: now, auditLine: line))
        update = AuthorizationStore.Update(selection: ["C", "A", "D"], albums: ["Y", "Z"])
        note(try await storage.apply(update, to: "first", now: now.addingTimeInterval(1), auditLine: line))
        note(try await storage.apply(AuthorizationStore.Update(addedAssets: ["E", "A"]), to: "first", now: now.addingTimeInterval(2)))
        note(try await storage.apply(AuthorizationStore.Update(addOnly: .authorized, term: term), to: "first", now: now.addingTimeInterval(3), auditLine: line))
        // A prompt's answer after the owner decided: nothing changes, the line is written.
        note(try await storage.apply(AuthorizationStore.Update(readWrite: .denied, onlyWhileNotDetermined: .readWrite), to: "first",
                                     now: now.addingTimeInterval(4), auditLine: line))
        note(try await storage.access(of: "first"))
        note(try await storage.access(of: "first", includingSelection: false))
        note(try await storage.selectionCount(of: "first"))
        note(try await storage.followedAlbums(of: "first"))
        note(try await storage.changes(of: "first", since: 0))
        note(try await storage.changes(of: "first", since: 2))
        note(try await storage.latestToken(of: "first"))
        note(try await storage.latestToken(of: "second"))

        try await storage.setLocation(of: "first", granted: .approximate, requested: .precise, now: now,
                                      auditLine: AuditEntry(app: "first", operation: .locationPrompt, outcome: .location(.approximate), at: now))
        try await storage.setLocation(of: "first", granted: .precise, requested: nil, now: now,
                                      auditLine: AuditEntry(app: "first", operation: .locationSettings, outcome: .location(.precise), at: now))
        note(try await storage.location(of: "first"))
        note(try await storage.location(of: "second"))

        note(try await storage.nextTermEnd() as Any)
        note(try await storage.endTerms(at: now.addingTimeInterval(60)))
        note(try await storage.endTerms(at: now.addingTimeInterval(7200)))
        note(try await storage.access(of: "first"))
        note(try await storage.nextTermEnd() as Any)

        // The picker's reads, gathered; then pages, a family of operations, and the summary.
        var repeated = AuditEntry(app: "second", operation: .load, outcome: .completed, at: now.addingTimeInterval(10), asset: "B/L0/001")
        repeated.times = 3
        repeated.lastAt = now.addingTimeInterval(12)
        try await storage.appendAudit([
            AuditEntry(app: "second", operation: .pick(.opened), assetCount: 2, outcome: .waiting, at: now.addingTimeInterval(5)),
            AuditEntry(app: "second", operation: .pick(.answered), assetCount: 2, outcome: .delivered, at: now.addingTimeInterval(6)),
            AuditEntry(app: "second", operation: .load, outcome: .completed, at: now.addingTimeInterval(7), asset: "A/L0/001"),
            AuditEntry(app: "second", operation: .load, outcome: .refused("wrongApp"), at: now.addingTimeInterval(8), asset: "C/L0/001"),
            AuditEntry(id: nil, app: "second", operation: "fetch", assetCount: 4, outcome: "ok", at: now.addingTimeInterval(9), bytes: 1234),
            repeated,
        ])
        note(try await storage.auditEntries(AuditRequest(), limit: 100))
        var page = AuditRequest(app: "second", limit: 2)
        while true {
            let entries = try await storage.auditEntries(page, limit: 2)
            note(entries.map { "\($0.id ?? 0) \($0.operation)" })
            guard entries.count == 2, let last = entries.last?.id else { break }
            page.before = last
        }
        note(try await storage.auditEntries(AuditRequest(operation: "pick"), limit: 100).map(\.operation))
        note(try await storage.auditEntries(AuditRequest(since: now.addingTimeInterval(6), until: now.addingTimeInterval(9)), limit: 100).map(\.operation))
        note(try await storage.auditSummary(app: "second", since: now, recentLimit: 10))
        note(try await storage.auditSummary(app: "first", since: now, recentLimit: 10))

        // "second" used its grant after the cutoff; "first", granted again but unused since, is reset.
        note(try await storage.apply(AuthorizationStore.Update(readWrite: .authorized), to: "second", now: now))
        note(try await storage.apply(AuthorizationStore.Update(readWrite: .authorized), to: "first", now: now, auditLine: line))
        note(try await storage.resetUnused(since: now.addingTimeInterval(11), now: now.addingTimeInterval(100)))
        note(try await storage.unusedResetSince(of: "first") as Any)
        note(try await storage.unusedResetSince(of: "second") as Any)
        note(try await storage.access(of: "first"))
        return lines
    }
}

/// A flag one task clears and another reads.
final class Flag: Sendable {
    private let value = Mutex(true)
    var isSet: Bool { value.withLock { $0 } }
    func clear() { value.withLock { $0 = false } }
}

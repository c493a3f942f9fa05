import Foundation
import GRDB
import LightboxProtocol
import Testing
@testable import Auth

@Suite struct AuditLogTests {
    func makeLog() throws -> (AuditLog, DatabasePool, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        let database = try AuthDatabase.open(at: folder.appendingPathComponent("auth.sqlite"))
        return (AuditLog(storage: SQLiteAuthStorage(database: database)), database, folder)
    }

    func entry(_ app: String, _ operation: String, at: Date, bytes: Int64? = nil) -> AuditEntry {
        AuditEntry(app: app, operation: operation, assetCount: 1, outcome: "ok", at: at, bytes: bytes, asset: bytes == nil ? nil : "A/L0/001")
    }

    @Test func operationMatchesTheNameOrItsPrefixOnly() async throws {
        let (log, _, folder) = try makeLog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = Date()
        log.record(["pick:opened", "pick:answered", "pick", "picker", "pickle:x", "load"].map { entry("demo", $0, at: now) })
        let picks = try await log.entries(AuditRequest(operation: "pick")).entries.map(\.operation)
        #expect(picks == ["pick", "pick:answered", "pick:opened"])
        #expect(try await log.entries(AuditRequest(operation: "pick:opened")).entries.map(\.operation) == ["pick:opened"])
        #expect(try await log.entries(AuditRequest(operation: "pic")).entries.isEmpty)
    }

    @Test func timeWindowsAppsAndPagesNewestFirst() async throws {
        let (log, _, folder) = try makeLog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        log.record((0..<10).map { entry($0.isMultiple(of: 2) ? "even" : "odd", "load", at: start.addingTimeInterval(Double($0) * 60), bytes: Int64($0)) })

        let all = try await log.entries(AuditRequest())
        #expect(all.entries.compactMap(\.bytes) == Array((0..<10).reversed()))
        #expect(all.next == nil)
        #expect(try await log.entries(AuditRequest(app: "even")).entries.compactMap(\.bytes) == [8, 6, 4, 2, 0])
        // since is inclusive, until exclusive.
        let window = try await log.entries(AuditRequest(since: start.addingTimeInterval(120), until: start.addingTimeInterval(300)))
        #expect(window.entries.compactMap(\.bytes) == [4, 3, 2])

        var pages: [[Int64]] = []
        var request = AuditRequest(app: "odd", limit: 2)
        while true {
            let page = try await log.entries(request)
            pages.append(page.entries.compactMap(\.bytes))
            guard let next = page.next else { break }
            request.before = next
        }
        #expect(pages == [[9, 7], [5, 3], [1]])
        // A limit out of range is brought into it.
        #expect(try await log.entries(AuditRequest(limit: 0)).entries.count == 1)
        #expect(try await log.entries(AuditRequest(limit: 1_000_000)).entries.count == 10)
    }

    @Test func auditLinesAreWrittenTogetherAndLeaveTheConnectionDurable() async throws {
        let (log, database, folder) = try makeLog()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Recording returns at once; the lines land together, a few milliseconds later.
        let count = 2_000
        for index in 0..<count { log.record(app: "demo", operation: .decision(.read), assetCount: index, outcome: .allowed(.all)) }
        await log.flush()
        let rows = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit") }
        #expect(rows == count)
        // In the order recorded.
        let written = try await log.entries(AuditRequest(app: "demo", operation: "read", limit: 10_000)).entries
        #expect(written.map(\.assetCount) == Array((0..<count).reversed()))
        // synchronous=FULL again for the grants written next (2 = FULL).
        #expect(try await database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
    }

    @Test func identicalEntriesAreStoredAsOneLineWithTheirCount() async throws {
        let (log, database, folder) = try makeLog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        log.record((0..<1_000).map { AuditEntry(app: "demo", operation: "fetch", assetCount: 1, outcome: "delivered", at: start.addingTimeInterval(Double($0) / 1000)) })
        log.record(app: "demo", operation: .settings, outcome: AuditOutcome(rawValue: "readWrite:authorized"), at: start.addingTimeInterval(2))
        await log.flush()
        #expect(try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit") } == 2)
        let lines = try await log.entries(AuditRequest(app: "demo")).entries
        #expect(lines.map(\.operation) == ["settings", "fetch"])
        #expect(lines.map(\.times) == [nil, 1_000])
        #expect(lines[1].at == start)
        #expect(abs(try #require(lines[1].lastAt).timeIntervalSince(start.addingTimeInterval(0.999))) < 0.001)
        #expect(lines[0].lastAt == nil)
    }

    @Test func entriesAreReadAfterWhatWasRecorded() async throws {
        let (log, _, folder) = try makeLog()
        defer { try? FileManager.default.removeItem(at: folder) }
        log.record(app: "demo", operation: .settings, outcome: AuditOutcome(rawValue: "readWrite:authorized"))
        #expect(try await log.entries(AuditRequest(app: "demo")).entries.map(\.operation) == ["settings"])
    }
}

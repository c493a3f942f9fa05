import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage
import Testing
@testable import Auth

/// Each record the auth service reads by position names only columns its table has.
@Suite struct RecordColumnsTests {
    @Test func recordColumnsAreTheirTablesColumns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("auth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try AuthDatabase.open(at: folder.appendingPathComponent("auth.sqlite"))
        try database.read { (db: Database) throws in
            #expect(try AppRecord.columnsMissing(from: "app", in: db) == [])
            #expect(try StatusRow.columnsMissing(from: "authorization", in: db) == [])
            #expect(try AuthorizationChange.columnsMissing(from: "change", in: db) == [])
            #expect(try AuditEntry.columnsMissing(from: "audit", in: db) == [])
        }
    }
}

import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage
import Testing
@testable import Picker

/// The ways an asset row is read (from the SQLite statement for fetches and pages, from a GRDB
/// row elsewhere) give the same records, NULL columns, Live Photo columns and dates included.
@Suite struct AssetRecordRowTests {
    /// A fixture holding the sample library, with `change` made to its rows.
    func sampleLibrary(changedBy change: @escaping @Sendable (Database) throws -> Void) async throws -> PickerFixture {
        let fixture = try PickerFixture()
        do {
            _ = try await fixture.importer.importFolder(PickerFixture.samples.appendingPathComponent("library")) { _ in }
            try await fixture.catalog.database.write(change)
        } catch {
            fixture.remove()
            throw error
        }
        return fixture
    }

    @Test func theStatementReaderAndTheRowReaderAgree() async throws {
        // A Live Photo's columns, a number stored as a date, and NULLs where a still has none.
        let fixture = try await sampleLibrary { db in
            try db.execute(sql: """
                UPDATE asset SET pairedPath = 'aa/movie.mov', pairedHash = 'aa', pairedType = 'com.apple.quicktime-movie'
                WHERE rowid = (SELECT min(rowid) FROM asset WHERE mediaType = 'image')
                """)
            try db.execute(sql: "UPDATE asset SET importedAt = 1700000000.25 WHERE rowid = (SELECT max(rowid) FROM asset)")
        }
        defer { fixture.remove() }
        let (fast, slow, byRow) = try fixture.catalog.database.pointRead { db in
            let statement = try db.makeStatement(sql: "SELECT \(AssetRecord.columnList) FROM asset ORDER BY identifier")
            let fast = try AssetRecord.read(from: statement, in: db)
            let slow = try AssetRecord.fetchAll(db, sql: "SELECT * FROM asset ORDER BY identifier")
            let byRow = try Row.fetchAll(db, sql: "SELECT * FROM asset ORDER BY identifier").map(AssetRecord.init(row:))
            return (fast, slow, byRow)
        }
        #expect(fast.count == 7)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(fast) == encoder.encode(slow))
        #expect(try encoder.encode(byRow) == encoder.encode(slow))
        #expect(fast.contains { $0.pairedMovie != nil })
        #expect(fast.contains { $0.duration != nil } && fast.contains { $0.duration == nil })
        #expect(fast.contains { $0.importedAt == Date(timeIntervalSince1970: 1_700_000_000.25) })
    }

    /// Pages read only the summary's columns; what they give is what a whole record's summary is,
    /// subtypes in name order and names made safe included, and the cursor row's date is the stored text.
    @Test func summaryRowsAgreeWithRecordSummaries() async throws {
        let fixture = try await sampleLibrary { db in
            try db.execute(sql: """
                UPDATE asset SET subtypes = 'screenshot,animated,screenshot', fileName = '../.hidden\u{202E}gpj.exe', isInCloud = 1
                WHERE rowid = (SELECT min(rowid) FROM asset)
                """)
        }
        defer { fixture.remove() }
        let (rows, records, stored) = try fixture.catalog.database.pointRead { db in
            let statement = try db.makeStatement(sql: "SELECT \(AssetSummaryRows.columns) FROM asset ORDER BY identifier")
            let rows = try AssetSummaryRows.fetchAll(statement, arguments: [], in: db, storedDateOfRow: 2)
            let records = try AssetRecord.fetchAll(db, sql: "SELECT * FROM asset ORDER BY identifier")
            let stored = try String.fetchAll(db, sql: "SELECT creationDate FROM asset ORDER BY identifier")
            return (rows, records, stored)
        }
        #expect(rows.summaries == records.map(\.summary))
        #expect(rows.cursorDate == stored[2])
        #expect(rows.summaries.contains { $0.subtypes == [.animated, .screenshot] && $0.isInCloud })
        #expect(!rows.summaries.contains { $0.fileName.contains("/") || $0.fileName.hasPrefix(".") || $0.fileName.contains("\u{202E}") })
    }
}

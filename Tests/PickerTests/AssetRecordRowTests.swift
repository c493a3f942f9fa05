import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage
import Testing
@testable import Picker

/// An asset row read by position (off the statement for fetches and pages, from a GRDB row through
/// the query interface) holds what GRDB reads from each column by name, NULL columns, Live Photo
/// columns and dates included.
@Suite struct AssetRecordRowTests {
    /// A fixture holding the sample library, with `change` made to its rows.
    func sampleLibrary(changedBy change: @escaping @Sendable (Database) throws -> Void) async throws -> PickerFixture {
        let fixture = try PickerFixture()
        do {
            _ = try await fixture.importer.importFolder(PickerFixture.samples.appendingPathComponent("library")) { _ in }
            try await fixture.database.write(change)
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
        let (fast, byRow, byName) = try fixture.database.pointRead { db in
            let statement = try db.makeStatement(sql: "SELECT \(AssetRecord.selectList) FROM asset ORDER BY identifier")
            let fast = try AssetRecord.fetchAll(positionally: statement)
            let byRow = try AssetRecord.order(AssetRecord.Columns.identifier).fetchAll(db)
            let byName = try Row.fetchAll(db, sql: "SELECT * FROM asset ORDER BY identifier")
            return (fast, byRow, byName)
        }
        #expect(fast.count == 7 && byName.count == 7)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(byRow) == encoder.encode(fast))
        // Each column as GRDB reads it by name is what GRDB would store for the record; dates compare
        // as the Dates GRDB reads (one is stored as a number here).
        for (record, row) in zip(fast, byName) {
            for (name, stored) in try record.databaseDictionary {
                let read: DatabaseValue = row[name]
                if case .string = stored.storage, let date = Date.fromDatabaseValue(stored) {
                    #expect(Date.fromDatabaseValue(read) == date, "\(name) of \(record.identifier)")
                } else {
                    #expect(read == stored, "\(name) of \(record.identifier)")
                }
            }
        }
        #expect(fast.contains { $0.pairedMovie != nil })
        #expect(fast.contains { $0.duration != nil } && fast.contains { $0.duration == nil })
        #expect(fast.contains { $0.importedAt == Date(timeIntervalSince1970: 1_700_000_000.25) })
    }

    /// Pages read only the summary's columns; what they give is what a whole record's summary is,
    /// subtypes in name order and names made safe included, and a page's cursor carries the date
    /// of its last row exactly as stored.
    @Test func summaryRowsAgreeWithRecordSummaries() async throws {
        let fixture = try await sampleLibrary { db in
            try db.execute(sql: """
                UPDATE asset SET subtypes = 'screenshot,animated,screenshot', fileName = '../.hidden\u{202E}gpj.exe', isInCloud = 1
                WHERE rowid = (SELECT min(rowid) FROM asset)
                """)
        }
        defer { fixture.remove() }
        let (rows, records, page, stored) = try fixture.database.pointRead { db in
            let statement = try db.makeStatement(sql: "SELECT \(AssetSummary.selectList) FROM asset ORDER BY identifier")
            let rows = try AssetSummary.fetchAll(positionally: statement)
            let records = try AssetRecord.order(AssetRecord.Columns.identifier).fetchAll(db)
            let page = try Catalog.page(db, conditions: [], order: .newestFirst, limit: 3, after: nil)
            let stored = try String.fetchAll(db, sql: "SELECT creationDate FROM asset ORDER BY creationDate DESC, identifier ASC")
            return (rows, records, page, stored)
        }
        #expect(rows == records.map(\.summary))
        #expect(page.next?.storedDate == stored[2])
        #expect(page.next?.identifier == page.assets.last?.identifier)
        #expect(rows.contains { $0.subtypes == [.animated, .screenshot] && $0.isInCloud })
        #expect(!rows.contains { $0.fileName.contains("/") || $0.fileName.hasPrefix(".") || $0.fileName.contains("\u{202E}") })
    }

    /// Each record the picker reads by position names only columns its table has.
    @Test func recordColumnsAreTheirTablesColumns() throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        try fixture.database.read { (db: Database) throws in
            #expect(try AssetRecord.columnsMissing(from: "asset", in: db) == [])
            #expect(try AssetSummary.columnsMissing(from: "asset", in: db) == [])
            #expect(try TokenRecord.columnsMissing(from: "providerToken", in: db) == [])
            #expect(try Album.columnsMissing(from: "album", in: db) == [])
            #expect(try LibraryChangeLog.Entry.columnsMissing(from: "libraryChange", in: db) == [])
        }
    }
}

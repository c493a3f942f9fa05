import Foundation
import GRDB
import Testing
@testable import Picker

@Suite struct CatalogMigrationTests {
    /// A catalog from before v4 keeps its assets, and afterwards one content hash may belong to
    /// several assets (an app's creation beside the owner's photo).
    @Test func v4KeepsTheAssetsAndAllowsSharedContent() throws {
        let database = try DatabaseQueue()
        try CatalogDatabase.migrator.migrate(database, upTo: "v3 cloud tier, image properties, token representations")
        let insert = """
            INSERT INTO asset (identifier, contentHash, fileName, storedPath, type, mediaType, fileSize, creationDate, importedAt)
            VALUES (?, 'abc', ?, 'ab/abc.jpg', 'public.jpeg', 'image', 10, '2024-01-01 00:00:00.000', '2024-01-01 00:00:00.000')
            """
        try database.write { db in
            try db.execute(sql: insert, arguments: ["OWNER/L0/001", "harbour.jpg"])
            try db.execute(sql: "INSERT INTO providerToken (tokenHash, app, asset, pick, issuedAt, expiresAt) VALUES ('t', 'demo', 'OWNER/L0/001', 'p', 0, 0)")
            #expect(throws: DatabaseError.self) { try db.execute(sql: insert, arguments: ["APP/L0/001", "mine.jpg"]) }
        }
        try CatalogDatabase.migrator.migrate(database)
        try database.write { db in
            try db.execute(sql: insert, arguments: ["APP/L0/001", "mine.jpg"])
            #expect(try String.fetchAll(db, sql: "SELECT fileName FROM asset WHERE contentHash = 'abc' ORDER BY fileName") == ["harbour.jpg", "mine.jpg"])
            #expect(try Bool.fetchOne(db, sql: "SELECT isInCloud FROM asset WHERE identifier = 'OWNER/L0/001'") == false)
            // Tokens still point at their asset, and go with it.
            try db.execute(sql: "DELETE FROM asset WHERE identifier = 'OWNER/L0/001'")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM providerToken") == 0)
            #expect(try db.indexes(on: "asset").contains { $0.columns == ["creationDate"] })
        }
    }
}

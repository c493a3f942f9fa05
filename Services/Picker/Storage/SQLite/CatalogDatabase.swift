import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// The picker's SQLite database (WAL): the asset catalog and the provider tokens. (Token use goes to
/// lightbox-auth's audit trail now; the old `tokenUse` table stays, unwritten.)
enum CatalogDatabase {
    static func open(at url: URL) throws -> DatabasePool {
        try SQLiteDatabase.openPool(at: url, migrator: migrator)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 catalog and tokens") { db in
            try db.create(table: "asset") { t in
                t.primaryKey("identifier", .text)
                t.column("contentHash", .text).notNull().unique()
                t.column("fileName", .text).notNull()
                t.column("storedPath", .text).notNull()
                t.column("type", .text).notNull()
                t.column("mediaType", .text).notNull()
                t.column("subtypes", .text).notNull().defaults(to: "")
                t.column("pixelWidth", .integer)
                t.column("pixelHeight", .integer)
                t.column("frameCount", .integer)
                t.column("duration", .double)
                t.column("fileSize", .integer).notNull()
                t.column("creationDate", .datetime).notNull().indexed()
                t.column("importedAt", .datetime).notNull()
            }
            try db.create(table: "providerToken") { t in
                t.primaryKey("tokenHash", .text)
                t.column("app", .text).notNull().indexed()
                t.column("asset", .text).notNull().references("asset", onDelete: .cascade)
                t.column("pick", .text).notNull()
                t.column("issuedAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
                t.column("revokedAt", .datetime)
            }
            try db.create(table: "tokenUse") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("tokenHash", .text).notNull().indexed()
                t.column("app", .text).notNull()
                t.column("operation", .text).notNull()
                t.column("outcome", .text).notNull()
                t.column("at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2 albums") { db in
            try db.create(table: "album") { t in
                t.primaryKey("identifier", .text)
                t.column("title", .text).notNull()
                t.column("createdAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v3 cloud tier, image properties, token representations") { db in
            try db.alter(table: "asset") { t in
                t.add(column: "isInCloud", .boolean).notNull().defaults(to: false)
                t.add(column: "properties", .text).notNull().defaults(to: "{}")
            }
            try db.alter(table: "providerToken") { t in
                t.add(column: "types", .text).notNull().defaults(to: "[]")
                t.add(column: "strip", .text).notNull().defaults(to: MetadataStripping.none.rawValue)
            }
        }
        migrator.registerMigration("v4 assets apps create are their own") { db in
            // An app's creation is a new asset even when its bytes match one already in the
            // library (anything else tells the app the photo exists and hands it the owner's
            // asset), so a content hash may now belong to several assets. SQLite cannot drop a
            // UNIQUE constraint: the table is rebuilt (foreign keys are checked after the migration).
            try db.create(table: "asset_v4") { t in
                t.primaryKey("identifier", .text)
                t.column("contentHash", .text).notNull().indexed()
                t.column("fileName", .text).notNull()
                t.column("storedPath", .text).notNull()
                t.column("type", .text).notNull()
                t.column("mediaType", .text).notNull()
                t.column("subtypes", .text).notNull().defaults(to: "")
                t.column("pixelWidth", .integer)
                t.column("pixelHeight", .integer)
                t.column("frameCount", .integer)
                t.column("duration", .double)
                t.column("fileSize", .integer).notNull()
                t.column("creationDate", .datetime).notNull()
                t.column("importedAt", .datetime).notNull()
                t.column("isInCloud", .boolean).notNull().defaults(to: false)
                t.column("properties", .text).notNull().defaults(to: "{}")
            }
            let columns = "identifier, contentHash, fileName, storedPath, type, mediaType, subtypes, pixelWidth, pixelHeight, "
                + "frameCount, duration, fileSize, creationDate, importedAt, isInCloud, properties"
            try db.execute(sql: "INSERT INTO asset_v4 (\(columns)) SELECT \(columns) FROM asset")
            try db.drop(table: "asset")
            try db.rename(table: "asset_v4", to: "asset")
            try db.create(index: "asset_on_creationDate", on: "asset", columns: ["creationDate"])
        }
        migrator.registerMigration("v5 library order index for keyset pages") { db in
            // Matches `ORDER BY creationDate DESC, identifier ASC`, so keyset pages read only their rows.
            try db.execute(sql: "CREATE INDEX asset_library_order ON asset (creationDate DESC, identifier ASC)")
            try db.execute(sql: "CREATE INDEX asset_media_order ON asset (mediaType, creationDate DESC, identifier ASC)")
        }
        migrator.registerMigration("v6 library changes and album members") { db in
            // Every change to the library, in order: the tokens apps' change observers count by.
            try db.create(table: "libraryChange") { t in
                t.autoIncrementedPrimaryKey("token")
                t.column("kind", .text).notNull()
                t.column("asset", .text)
                t.column("album", .text)
                t.column("at", .datetime).notNull()
            }
            try db.create(table: "albumAsset") { t in
                t.column("album", .text).notNull().references("album", onDelete: .cascade)
                t.column("asset", .text).notNull().references("asset", onDelete: .cascade).indexed()
                t.column("addedAt", .datetime).notNull()
                t.primaryKey(["album", "asset"])
            }
        }
        migrator.registerMigration("v7 Live Photos: the paired movie of a still") { db in
            try db.alter(table: "asset") { t in
                t.add(column: "pairedPath", .text)
                t.add(column: "pairedHash", .text)
                t.add(column: "pairedType", .text)
            }
        }
        migrator.registerMigration("v8 limited selections as a table, an index per subtype") { db in
            // Each limited app's selection, as lightbox-auth last answered it: queries join it
            // instead of carrying the identifiers. `version` orders answers against changes.
            try db.execute(sql: """
                CREATE TABLE appSelection (app TEXT NOT NULL, asset TEXT NOT NULL, PRIMARY KEY (app, asset)) WITHOUT ROWID;
                CREATE TABLE appSelectionVersion (app TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, size INTEGER NOT NULL);
                """)
            // Pages filtered by a subtype walk only that subtype's rows, in library order.
            for subtype in MediaSubtype.allCases {
                try db.execute(sql: """
                    CREATE INDEX asset_\(subtype.rawValue)_order ON asset (creationDate DESC, identifier ASC)
                    WHERE \(PickerFilter.subtypeCondition(subtype))
                    """)
            }
        }
        migrator.registerMigration("v9 watched folders' files") { db in
            // What the picker last saw of each file in a watched folder (`--watch`), so a restart
            // compares sizes, times and inodes instead of reading every file again. `asset` is null
            // for a file that is not media (or did not decode as it stood).
            try db.execute(sql: """
                CREATE TABLE watchedFile (
                    path TEXT PRIMARY KEY NOT NULL,
                    asset TEXT REFERENCES asset(identifier) ON DELETE SET NULL,
                    size INTEGER NOT NULL, modified INTEGER NOT NULL, device INTEGER NOT NULL, inode INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX watchedFile_on_asset ON watchedFile (asset);
                CREATE INDEX watchedFile_on_inode ON watchedFile (inode);
                """)
        }
        migrator.registerMigration("v10 places, cameras and the owner's search") { db in
            // Where each photo was taken, named at import from its GPS position (`ReverseGeocoder`),
            // and the camera that took it: what the owner's search finds besides dates and kinds.
            try db.alter(table: "asset") { t in
                t.add(column: "city", .text)
                t.add(column: "country", .text)
                t.add(column: "camera", .text)
            }
            // The camera of the assets already there, from the EXIF they were imported with.
            try db.execute(sql: "UPDATE asset SET camera = \(CameraName.sqlExpression(properties: "properties")) WHERE camera IS NULL")
            // A search for a place or a camera pages through its own rows in library order, as the
            // library-order index does for the whole library: equality on the first column, the
            // keyset range on the next two.
            for column in SearchColumn.allCases {
                try db.execute(sql: "CREATE INDEX \(column.indexName) ON asset (\(column.rawValue) COLLATE NOCASE, creationDate DESC, identifier ASC)")
            }
        }
        migrator.registerMigration("v11 file names by their trigrams") { db in
            // What the owner's search finds a rare file name through (`LibrarySearch.inFileName`)
            // instead of walking the library: each asset's file name under the asset's rowid, kept
            // by triggers (asset rows are inserted, renamed and deleted, never replaced).
            try db.execute(sql: """
                CREATE VIRTUAL TABLE assetFileName USING fts5(fileName, tokenize = 'trigram');
                INSERT INTO assetFileName (rowid, fileName) SELECT rowid, fileName FROM asset;
                CREATE TRIGGER asset_fileName_inserted AFTER INSERT ON asset BEGIN
                    INSERT INTO assetFileName (rowid, fileName) VALUES (new.rowid, new.fileName);
                END;
                CREATE TRIGGER asset_fileName_renamed AFTER UPDATE OF fileName ON asset BEGIN
                    UPDATE assetFileName SET fileName = new.fileName WHERE rowid = old.rowid;
                END;
                CREATE TRIGGER asset_fileName_deleted AFTER DELETE ON asset BEGIN
                    DELETE FROM assetFileName WHERE rowid = old.rowid;
                END;
                """)
        }
        migrator.registerMigration("v12 paired movies by path") { db in
            // What a removal asks before deleting a Live Photo's movie, and the sweep of stored files
            // (`StoredFileUses`): which assets name a movie, without reading every row.
            try db.execute(sql: "CREATE INDEX asset_on_pairedPath ON asset (pairedPath) WHERE pairedPath IS NOT NULL")
        }
        migrator.registerMigration("v13 apps' edits beside the originals") { db in
            // An asset's current version when an app edited it (`AssetEdit`): its own file beside
            // the original, which stays as it was, and the app's adjustment data. One per asset; found
            // by content hash too, as a stored file's name begins with it.
            try db.execute(sql: """
                CREATE TABLE assetEdit (
                    asset TEXT PRIMARY KEY NOT NULL REFERENCES asset(identifier) ON DELETE CASCADE,
                    contentHash TEXT NOT NULL, storedPath TEXT NOT NULL, type TEXT NOT NULL,
                    pixelWidth INTEGER, pixelHeight INTEGER, duration DOUBLE, fileSize INTEGER NOT NULL,
                    properties TEXT NOT NULL DEFAULT '{}', app TEXT NOT NULL, appName TEXT,
                    adjustmentFormat TEXT NOT NULL, adjustmentVersion TEXT NOT NULL, adjustmentData BLOB NOT NULL,
                    editedAt DATETIME NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX assetEdit_on_contentHash ON assetEdit (contentHash);
                """)
        }
        migrator.registerMigration("v14 limited selections that follow albums") { db in
            // The albums each limited app's selection follows, as lightbox-auth last answered (with
            // `appSelection`, under its `appSelectionVersion`): reads join them to `albumAsset`, so
            // an album's members are never copied per app.
            try db.execute(sql: "CREATE TABLE appSelectionAlbum (app TEXT NOT NULL, album TEXT NOT NULL, PRIMARY KEY (app, album)) WITHOUT ROWID")
        }
        migrator.registerMigration("v15 location only by consent") { db in
            // Tokens issued before apps asked for location delivered it; from now on none has it
            // without the owner's consent, so theirs deliver none either (`MetadataRemoval.location`).
            try db.execute(sql: "UPDATE providerToken SET strip = 'location' WHERE strip = 'none'")
        }
        migrator.registerMigration("v16 changes for one app") { db in
            // The app a change row is for: an album its limited selection began or stopped following.
            try db.execute(sql: "ALTER TABLE libraryChange ADD COLUMN app TEXT")
        }
        return migrator
    }
}

import Foundation
import LightboxPostgres
import LightboxProtocol

/// The catalog's tables on PostgreSQL, applied by `PostgresMigrator` (recorded in
/// `picker_migrations`). PostgreSQL starts at the current schema: its first migration is the final
/// state of SQLite's v1–v15 (`CatalogDatabase`), in PostgreSQL's types, and later changes are
/// migrations of their own on both. The column names are SQLite's, unquoted (PostgreSQL folds them
/// to lower case). Identifiers and paths compare byte by byte (`COLLATE "C"`), as SQLite's do, so
/// keyset pages and path ranges order the same on both.
enum PostgresCatalogSchema {
    static var migrator: PostgresMigrator {
        var migrator = PostgresMigrator(table: "picker_migrations")
        migrator.register("v1 the catalog as of SQLite's v15", [
            """
            CREATE TABLE asset (
                identifier TEXT COLLATE "C" PRIMARY KEY,
                contentHash TEXT NOT NULL,
                fileName TEXT NOT NULL,
                storedPath TEXT NOT NULL,
                type TEXT NOT NULL,
                mediaType TEXT NOT NULL,
                subtypes TEXT NOT NULL DEFAULT '',
                pixelWidth INTEGER,
                pixelHeight INTEGER,
                frameCount INTEGER,
                duration DOUBLE PRECISION,
                fileSize BIGINT NOT NULL,
                creationDate TIMESTAMPTZ NOT NULL,
                importedAt TIMESTAMPTZ NOT NULL,
                isInCloud BOOLEAN NOT NULL DEFAULT false,
                properties TEXT NOT NULL DEFAULT '{}',
                pairedPath TEXT,
                pairedHash TEXT,
                pairedType TEXT,
                city TEXT,
                country TEXT,
                camera TEXT
            )
            """,
            "CREATE INDEX asset_on_contentHash ON asset (contentHash)",
            // Matches `ORDER BY creationDate DESC, identifier ASC`, so keyset pages read only their rows.
            "CREATE INDEX asset_library_order ON asset (creationDate DESC, identifier ASC)",
            "CREATE INDEX asset_media_order ON asset (mediaType, creationDate DESC, identifier ASC)",
            "CREATE INDEX asset_on_pairedPath ON asset (pairedPath) WHERE pairedPath IS NOT NULL",
        ] + MediaSubtype.allCases.map { subtype in
            // Pages filtered by a subtype walk only that subtype's rows, in library order.
            "CREATE INDEX asset_\(subtype.rawValue)_order ON asset (creationDate DESC, identifier ASC) WHERE \(PickerFilter.subtypeCondition(subtype))"
        } + SearchColumn.allCases.map { column in
            // A search for a place or a camera pages through its own rows, compared without case.
            "CREATE INDEX \(column.indexName) ON asset (lower(\(column.rawValue)), creationDate DESC, identifier ASC)"
        } + [
            // The owner's search finds a file name by its trigrams (pg_trgm, part of PostgreSQL's
            // contrib, trusted: a database owner may create it).
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            "CREATE INDEX asset_fileName_trigrams ON asset USING gin (lower(fileName) gin_trgm_ops)",
            // SQLite's `tokenUse` table (unwritten since token use went to lightbox-auth's audit trail) is not made.
            """
            CREATE TABLE providerToken (
                tokenHash TEXT PRIMARY KEY,
                app TEXT NOT NULL,
                asset TEXT COLLATE "C" NOT NULL REFERENCES asset (identifier) ON DELETE CASCADE,
                pick TEXT NOT NULL,
                issuedAt TIMESTAMPTZ NOT NULL,
                expiresAt TIMESTAMPTZ NOT NULL,
                revokedAt TIMESTAMPTZ,
                types TEXT NOT NULL DEFAULT '[]',
                strip TEXT NOT NULL DEFAULT 'location'
            )
            """,
            "CREATE INDEX providerToken_on_app ON providerToken (app)",
            "CREATE INDEX providerToken_on_asset ON providerToken (asset)",
            "CREATE TABLE album (identifier TEXT COLLATE \"C\" PRIMARY KEY, title TEXT NOT NULL, createdAt TIMESTAMPTZ NOT NULL)",
            """
            CREATE TABLE albumAsset (
                album TEXT COLLATE "C" NOT NULL REFERENCES album (identifier) ON DELETE CASCADE,
                asset TEXT COLLATE "C" NOT NULL REFERENCES asset (identifier) ON DELETE CASCADE,
                addedAt TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (album, asset)
            )
            """,
            "CREATE INDEX albumAsset_on_asset ON albumAsset (asset)",
            // Every change to the library, in order: the tokens apps' change observers count by.
            // Writers take `PostgresCatalogStorage.changeLogLock` before adding rows, so tokens
            // commit in the order they are drawn.
            """
            CREATE TABLE libraryChange (
                token BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                kind TEXT NOT NULL,
                asset TEXT,
                album TEXT,
                at TIMESTAMPTZ NOT NULL
            )
            """,
            // Limited apps' selections, as lightbox-auth last answered them (`SelectionTable`).
            "CREATE TABLE appSelection (app TEXT NOT NULL, asset TEXT COLLATE \"C\" NOT NULL, PRIMARY KEY (app, asset))",
            "CREATE TABLE appSelectionVersion (app TEXT PRIMARY KEY, version BIGINT NOT NULL, size INTEGER NOT NULL)",
            "CREATE TABLE appSelectionAlbum (app TEXT NOT NULL, album TEXT COLLATE \"C\" NOT NULL, PRIMARY KEY (app, album))",
            """
            CREATE TABLE watchedFile (
                path TEXT COLLATE "C" PRIMARY KEY,
                asset TEXT COLLATE "C" REFERENCES asset (identifier) ON DELETE SET NULL,
                size BIGINT NOT NULL, modified BIGINT NOT NULL, device BIGINT NOT NULL, inode BIGINT NOT NULL
            )
            """,
            "CREATE INDEX watchedFile_on_asset ON watchedFile (asset)",
            "CREATE INDEX watchedFile_on_inode ON watchedFile (inode)",
            """
            CREATE TABLE assetEdit (
                asset TEXT COLLATE "C" PRIMARY KEY REFERENCES asset (identifier) ON DELETE CASCADE,
                contentHash TEXT NOT NULL, storedPath TEXT NOT NULL, type TEXT NOT NULL,
                pixelWidth INTEGER, pixelHeight INTEGER, duration DOUBLE PRECISION, fileSize BIGINT NOT NULL,
                properties TEXT NOT NULL DEFAULT '{}', app TEXT NOT NULL, appName TEXT,
                adjustmentFormat TEXT NOT NULL, adjustmentVersion TEXT NOT NULL, adjustmentData BYTEA NOT NULL,
                editedAt TIMESTAMPTZ NOT NULL
            )
            """,
            "CREATE INDEX assetEdit_on_contentHash ON assetEdit (contentHash)",
        ])
        migrator.register("pick sessions shared by pickers", PostgresPickSessions.schema)
        migrator.register("derivative work claims", PostgresWorkClaims.migration(table: PostgresDerivativeClaims.table))
        // SQLite's v16: the app a change row is for (an album its limited selection began or stopped following).
        migrator.register("changes for one app", ["ALTER TABLE libraryChange ADD COLUMN app TEXT"])
        return migrator
    }
}

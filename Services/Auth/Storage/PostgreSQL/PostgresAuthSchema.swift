import LightboxPostgres

/// lightbox-auth's tables on PostgreSQL, prefixed `auth_` so that they may share a database with
/// the picker's. PostgreSQL starts at the schema SQLite reached in its migrations v1–v9
/// (`AuthDatabase`): there is no older PostgreSQL data to migrate, so its first migration is that
/// final state, and later changes are added here and in `AuthDatabase` alike.
///
/// Dates are TIMESTAMPTZ; change tokens and audit ids are BIGINT identities; the lists of assets
/// and albums a change added or removed are TEXT[]. Operations and outcomes compare byte by byte
/// (`COLLATE "C"`): the audit queries match a family (`pick`, `pick:…`) as a range, which needs ":"
/// and ";" to sort as they do in SQLite whatever the database's collation.
enum PostgresAuthSchema {
    static var migrator: PostgresMigrator {
        var migrator = PostgresMigrator(table: "auth_migrations")
        migrator.register("v1 apps, access, selections, changes, audit, desktop apps, terms, location", [
            """
            CREATE TABLE auth_app (
                id TEXT PRIMARY KEY, name TEXT NOT NULL, public_key TEXT NOT NULL UNIQUE, usage_read_write TEXT, usage_add_only TEXT,
                prevent_automatic_limited_access_alert BOOLEAN NOT NULL DEFAULT false, registered_at TIMESTAMPTZ NOT NULL)
            """,
            """
            CREATE TABLE auth_status (
                app TEXT NOT NULL, level TEXT NOT NULL, status TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL,
                expires_at TIMESTAMPTZ, after_expiry TEXT, PRIMARY KEY (app, level))
            """,
            // The sweep of grants that end looks for the earliest end, and for those past.
            "CREATE INDEX auth_status_expires_at ON auth_status (expires_at) WHERE expires_at IS NOT NULL",
            // The owner's order: the limited picker shows it back as it was chosen.
            "CREATE TABLE auth_selection (app TEXT NOT NULL, asset TEXT NOT NULL, position BIGINT NOT NULL, PRIMARY KEY (app, asset))",
            "CREATE INDEX auth_selection_app_position ON auth_selection (app, position)",
            // The albums a limited selection follows (the picker joins their members in its catalog).
            "CREATE TABLE auth_selection_album (app TEXT NOT NULL, album TEXT NOT NULL, position BIGINT NOT NULL, PRIMARY KEY (app, album))",
            """
            CREATE TABLE auth_change (
                token BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, app TEXT NOT NULL, level TEXT NOT NULL, status TEXT NOT NULL,
                added TEXT[] NOT NULL, removed TEXT[] NOT NULL, at TIMESTAMPTZ NOT NULL, added_albums TEXT[], removed_albums TEXT[])
            """,
            // An app's changes since a token: a range of this index.
            "CREATE INDEX auth_change_app_token ON auth_change (app, token)",
            """
            CREATE TABLE auth_audit (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, app TEXT NOT NULL, operation TEXT COLLATE "C" NOT NULL,
                asset_count BIGINT NOT NULL, outcome TEXT COLLATE "C" NOT NULL, at TIMESTAMPTZ NOT NULL, bytes BIGINT, asset TEXT,
                times BIGINT NOT NULL DEFAULT 1, last_at TIMESTAMPTZ)
            """,
            // Pages go newest first by id, within an app, an operation or a time range; the privacy
            // report counts one app's lines since a time.
            "CREATE INDEX auth_audit_app_id ON auth_audit (app, id)",
            "CREATE INDEX auth_audit_operation_id ON auth_audit (operation, id)",
            "CREATE INDEX auth_audit_at ON auth_audit (at)",
            "CREATE INDEX auth_audit_app_at ON auth_audit (app, at)",
            "CREATE TABLE auth_desktop_app (app TEXT PRIMARY KEY, name TEXT NOT NULL, announced_at TIMESTAMPTZ NOT NULL)",
            "CREATE TABLE auth_unused_reset (app TEXT PRIMARY KEY, unused_since TIMESTAMPTZ NOT NULL, reset_at TIMESTAMPTZ NOT NULL)",
            // Per app, beside its statuses: the location it last asked for with library access
            // (null: never asked) and the one the owner gave.
            "CREATE TABLE auth_location (app TEXT PRIMARY KEY, requested TEXT, granted TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL)",
        ])
        return migrator
    }
}

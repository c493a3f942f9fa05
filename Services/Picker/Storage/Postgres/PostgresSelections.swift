import Foundation
import LightboxPostgres
import Logging
import PostgresNIO

/// Limited apps' selections in PostgreSQL (`appSelection`, `appSelectionAlbum`, `appSelectionVersion`),
/// replaced only by a newer answer whatever order answers arrive in.
struct PostgresSelections: SelectionStorage {
    let postgres: PostgresStorage
    let logger: Logger

    @discardableResult
    func replace(app: String, with assets: [String], albums: [String], version: Int64) async throws -> Bool {
        let logger = self.logger
        return try await postgres.transaction("store an app's selection") { connection in
            // Several pickers store the same answers: one at a time per app, so versions only grow.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('appSelection'), hashtext(\(app)))", logger: logger)
            let stored = try await PostgresCatalogStorage.first(connection, logger, "SELECT version FROM appSelectionVersion WHERE app = \(app)",
                                                                Int64.self)
            if let stored, stored > version { return false }
            if stored == version { return true }
            // The albums it began and stopped following, for its change watchers (see SelectionTable).
            if stored != nil {
                var before: Set<String> = []
                for try await album in try await connection.query("SELECT album FROM appSelectionAlbum WHERE app = \(app)",
                                                                  logger: logger).decode(String.self) {
                    before.insert(album)
                }
                let rows = LibraryChangeLog.follows(before: before, after: Set(albums))
                if !rows.isEmpty {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresCatalogStorage.changeLogLock))", logger: logger)
                    let now = Date()
                    for (kind, album) in rows {
                        try await connection.query("""
                            INSERT INTO libraryChange (kind, album, at, app) VALUES (\(kind.rawValue), \(album), \(now), \(app))
                            """, logger: logger)
                    }
                    try await PostgresCatalogStorage.wakeOtherPickers(on: connection, logger: logger)
                }
            }
            try await connection.query("DELETE FROM appSelection WHERE app = \(app)", logger: logger)
            let unique = Array(Set(assets))
            try await connection.query("INSERT INTO appSelection (app, asset) SELECT \(app), UNNEST(\(unique)::TEXT[])", logger: logger)
            try await connection.query("DELETE FROM appSelectionAlbum WHERE app = \(app)", logger: logger)
            try await connection.query("INSERT INTO appSelectionAlbum (app, album) SELECT \(app), UNNEST(\(Array(Set(albums)))::TEXT[])",
                                       logger: logger)
            try await connection.query("""
                INSERT INTO appSelectionVersion (app, version, size) VALUES (\(app), \(version), \(Int32(unique.count)))
                ON CONFLICT (app) DO UPDATE SET version = EXCLUDED.version, size = EXCLUDED.size
                """, logger: logger)
            return true
        }
    }

    func assets(inAlbum album: String) async throws -> [String] {
        let logger = self.logger
        return try await postgres.withConnection("read an album's members") { connection in
            var members: [String] = []
            for try await asset in try await connection.query("SELECT asset FROM albumAsset WHERE album = \(album) ORDER BY asset",
                                                              logger: logger).decode(String.self) {
                members.append(asset)
            }
            return members
        }
    }

    func members(of app: String, among assets: [String]) async throws -> Set<String> {
        guard !assets.isEmpty else { return [] }
        let logger = self.logger
        return try await postgres.withConnection("read an app's selection") { connection in
            var members: Set<String> = []
            for try await asset in try await connection.query("""
                SELECT asset FROM appSelection WHERE app = \(app) AND asset = ANY(\(assets))
                UNION
                SELECT asset FROM albumAsset WHERE asset = ANY(\(assets)) AND album IN (SELECT album FROM appSelectionAlbum WHERE app = \(app))
                """, logger: logger).decode(String.self) {
                members.insert(asset)
            }
            return members
        }
    }

    func membership(of app: String, among assets: [String]) async throws -> SelectionMembership {
        guard !assets.isEmpty else { return SelectionMembership() }
        let logger = self.logger
        // One transaction, so the three reads see one state.
        return try await postgres.transaction("read how assets are in an app's selection") { connection in
            var membership = SelectionMembership()
            for try await asset in try await connection.query("""
                SELECT asset FROM appSelection WHERE app = \(app) AND asset = ANY(\(assets))
                """, logger: logger).decode(String.self) {
                membership.chosen.insert(asset)
            }
            for try await album in try await connection.query("SELECT album FROM appSelectionAlbum WHERE app = \(app)", logger: logger)
                .decode(String.self) {
                membership.followed.insert(album)
            }
            guard !membership.followed.isEmpty else { return membership }
            for try await (asset, album) in try await connection.query("""
                SELECT asset, album FROM albumAsset WHERE asset = ANY(\(assets)) AND album IN (SELECT album FROM appSelectionAlbum WHERE app = \(app))
                """, logger: logger).decode((String, String).self) {
                membership.albumsHolding[asset, default: []].insert(album)
            }
            return membership
        }
    }
}

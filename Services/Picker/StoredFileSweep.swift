import Foundation
import GRDB
import Logging

/// Removes the stored files no asset uses: an original an import uploaded before it stopped short of
/// committing its rows, one a removal could not delete while the object store was down, the copy an
/// offload or a download left in its source when the picker stopped between its steps, a partial
/// download. The originals' store keeps what a local asset, a Live Photo's movie or an edit names; the cloud
/// tier keeps what an asset in the cloud names; the shared store of derived files (`derivedStore`)
/// keeps the derivatives of every content an asset or an edit has (`DerivedFileUses`), wherever its
/// original is, and loses those of content no asset has any more.
///
/// Files written less than `grace` ago are left alone: an import or a move may be about to commit
/// them. Each page of stored paths is checked with one read of the catalog by its indexes.
struct StoredFileSweep: Sendable {
    let catalog: Catalog
    let grace: Duration
    let logger: Logger
    /// The derived files every picker shares, when they are in an object store.
    var derivedStore: (any DerivativeStore)?

    /// What one sweep saw and removed, per store.
    struct Outcome: Sendable, Equatable {
        var seen = 0
        var removed = 0
    }

    func run() async throws -> (originals: Outcome, cloud: Outcome, derived: Outcome) {
        let cutoff = Date().addingTimeInterval(-Double(grace.components.seconds))
        let originals = try await sweep(catalog.originalStore, modifiedBefore: cutoff) { paths, db in try StoredFileUses(of: paths, db).local }
        let cloud = try await sweep(catalog.cloudStore, modifiedBefore: cutoff) { paths, db in try StoredFileUses(of: paths, db).cloud }
        var derived = Outcome()
        if let derivedStore {
            derived = try await sweep(derivedStore, modifiedBefore: cutoff) { names, db in try DerivedFileUses(of: names, db).used }
        }
        logger.info("swept the stored files", metadata: [
            "originalsSeen": "\(originals.seen)", "originalsRemoved": "\(originals.removed)",
            "cloudSeen": "\(cloud.seen)", "cloudRemoved": "\(cloud.removed)",
            "derivedSeen": "\(derived.seen)", "derivedRemoved": "\(derived.removed)",
        ])
        return (originals, cloud, derived)
    }

    /// Removes the paths of `store` written before `cutoff` that are not among those `used` picks out of each page.
    private func sweep(_ store: any StoredFileListing, modifiedBefore cutoff: Date,
                       keeping used: @escaping @Sendable ([String], Database) throws -> Set<String>) async throws -> Outcome {
        var outcome = Outcome()
        let catalog = self.catalog
        try await store.forEachStoredPage(modifiedBefore: cutoff) { paths in
            let inUse = try await catalog.database.read { db in try used(paths, db) }
            outcome.seen += paths.count
            for path in paths where !inUse.contains(path) {
                try await store.removeStored(path)
                outcome.removed += 1
                logger.notice("removed a stored file no asset uses", metadata: ["path": "\(path)"])
            }
        }
        return outcome
    }
}

/// Which of some stored paths the catalog names, as a local original (or a Live Photo's movie, or an
/// app's edit) and as an original in the cloud tier. A stored path starts with its content's hash
/// (`LibraryImporter.storedPath`), so the stills are found by the content-hash index and the movies
/// by the paired-path index.
struct StoredFileUses {
    var local: Set<String> = []
    var cloud: Set<String> = []

    init(of paths: [String], _ db: Database) throws {
        let hashes = Set(paths.map(Self.contentHash))
        let list = String(decoding: try JSONEncoder().encode(Array(hashes)), as: UTF8.self)
        let stills = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT storedPath, isInCloud FROM asset WHERE contentHash IN (SELECT value FROM json_each(?))
            """), arguments: [list])
        while let row = try stills.next() {
            if row[1] as Bool { cloud.insert(row[0]) } else { local.insert(row[0]) }
        }
        // An app's edit (`AssetEdit`) is a file of its own beside the original, named by its own hash.
        local.formUnion(try String.fetchAll(db.cachedStatement(sql: """
            SELECT storedPath FROM assetEdit WHERE contentHash IN (SELECT value FROM json_each(?))
            """), arguments: [list]))
        let movies = String(decoding: try JSONEncoder().encode(paths), as: UTF8.self)
        local.formUnion(try String.fetchAll(db.cachedStatement(sql: """
            SELECT pairedPath FROM asset WHERE pairedPath IN (SELECT value FROM json_each(?))
            """), arguments: [movies]))
    }

    /// The content hash a stored path begins with: its file name up to the first `-` or `.`.
    static func contentHash(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return String(name.prefix { $0 != "-" && $0 != "." })
    }
}

import Foundation
import Logging

/// Removes the stored files no asset uses: an original an import uploaded before it stopped short of
/// committing its rows, one a removal could not delete while the object store was down, the copy an
/// offload or a download left in its source when the picker stopped between its steps, a partial
/// download. The originals' store keeps what a local asset, a Live Photo's movie or an edit names; the cloud
/// tier keeps what an asset in the cloud names; the shared store of derived files (`derivedStore`)
/// keeps the derivatives of every content an asset or an edit has, wherever its
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
        let storage = catalog.storage
        let originals = try await sweep(catalog.originalStore, modifiedBefore: cutoff) { try await storage.storedFileUses(of: $0).local }
        let cloud = try await sweep(catalog.cloudStore, modifiedBefore: cutoff) { try await storage.storedFileUses(of: $0).cloud }
        var derived = Outcome()
        if let derivedStore {
            // A derivative's name (`RenditionKey.fileName`) starts with its content's hash, as a stored original's path does.
            derived = try await sweep(derivedStore, modifiedBefore: cutoff) { names in
                let present = try await storage.contentHashesInUse(Set(names.map(StoredFileUses.contentHash)))
                return Set(names.filter { present.contains(StoredFileUses.contentHash($0)) })
            }
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
                       keeping used: @escaping @Sendable ([String]) async throws -> Set<String>) async throws -> Outcome {
        var outcome = Outcome()
        try await store.forEachStoredPage(modifiedBefore: cutoff) { paths in
            let inUse = try await used(paths)
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
struct StoredFileUses: Sendable {
    var local: Set<String> = []
    var cloud: Set<String> = []

    /// The content hash a stored path begins with: its file name up to the first `-` or `.`.
    static func contentHash(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return String(name.prefix { $0 != "-" && $0 != "." })
    }
}

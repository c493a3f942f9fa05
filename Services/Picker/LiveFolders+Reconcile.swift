import Foundation
import LightboxProtocol
import Logging

/// Bringing the catalog in line with the watched files: moves first (no file read), then the new
/// and changed files read in steps of `chunk`, then the files gone.
extension LiveFolders {
    struct Reconciled: Sendable {
        /// Files read (each read once, hashed as it is read).
        var read = 0
        var moved = 0
        var removed = 0
    }

    /// `present`: files found, with their state now; `vanished`: paths found gone; `rows`: what the
    /// catalog remembers of any of them.
    func reconcile(present: [String: FileState], vanished: Set<String>, rows: [WatchedFileRow]) async throws -> Reconciled {
        var done = Reconciled()
        let byPath = Dictionary(rows.map { ($0.path, $0) }) { first, _ in first }
        // A file that vanished from one path and whose inode, size and time appear at another moved.
        var movable = Dictionary(rows.filter { vanished.contains($0.path) }.map { ($0.state, $0) }) { first, _ in first }
        var toRead: [FileToRead] = []
        var gone: [WatchedFileRow] = []
        for (path, state) in present.sorted(by: { $0.key < $1.key }) {
            let previous = byPath[path]
            if let previous, previous.state == state { continue }
            if let moved = movable.removeValue(forKey: state) {
                try await files.move(from: moved.path, to: path, state: state)
                if let asset = moved.asset { try await importer.catalog.rename(asset, to: URL(fileURLWithPath: path).lastPathComponent) }
                if let replaced = previous { gone.append(replaced) }
                done.moved += 1
                continue
            }
            toRead.append((path, state, previous))
        }
        gone += movable.values

        // Each step's files are read while the step before is committed: the cores decode while
        // the disk makes the last step durable.
        var start = 0
        var previous: PreparedStep?
        while start < toRead.count, !isStopping {
            let step = Array(toRead[start..<min(start + Self.chunk, toRead.count)])
            let (waiting, total) = (previous, toRead.count)
            async let committed: Void = commit(waiting, of: total)
            let outcomes = try await read(step, completedBefore: start, of: toRead.count)
            try await committed
            previous = PreparedStep(files: step, outcomes: outcomes, completedAfter: start + step.count)
            done.read += step.count
            start += step.count
            if toRead.count > Self.chunk {
                logger.info("importing from the watched folders", metadata: ["completed": "\(start)", "total": "\(toRead.count)"])
            }
        }
        try await commit(previous, of: toRead.count)

        // Removed last: a file copied elsewhere and then deleted keeps its asset for the copy.
        try await files.delete(gone.map(\.path))
        var removable: [String] = []
        for asset in Set(gone.compactMap(\.asset)) {
            if try await !files.isWatched(asset) { removable.append(asset) }
        }
        done.removed = try await importer.catalog.remove(removable).count
        return done
    }

    typealias FileToRead = (path: String, state: FileState, previous: WatchedFileRow?)

    /// A step's files, read and stored, waiting for their commit.
    struct PreparedStep: Sendable {
        var files: [FileToRead]
        var outcomes: [LibraryImporter.Outcome?]
        /// Files read once this step is: the last step's commit reports the import complete.
        var completedAfter: Int
    }

    /// Reads the files (in parallel, as an import does) and stores their contents; the catalog
    /// learns of them in `commit`.
    private func read(_ step: [FileToRead], completedBefore: Int, of total: Int) async throws -> [LibraryImporter.Outcome?] {
        let importer = self.importer
        var outcomes = [LibraryImporter.Outcome?](repeating: nil, count: step.count)
        var completed = completedBefore
        let stopping = self.stopping
        try await LibraryImporter.forEach(step.count, width: importer.width) { index -> LibraryImporter.Outcome in
            // A picker stopping reads no more; what is left is read at its next start.
            if stopping.isSet { return .failed(ImportFailure(file: step[index].path, code: .cancelled, message: "stopping")) }
            do {
                return .prepared(try await importer.prepare(URL(fileURLWithPath: step[index].path)))
            } catch {
                return .failed(LibraryImporter.failure(error, file: step[index].path))
            }
        } collect: { index, outcome in
            outcomes[index] = outcome
            completed += 1
            // The last step is reported once its records are in the catalog (`commit`).
            if completed < total { progress.report(ImportProgress(completed: completed, total: total, file: step[index].path)) }
        }
        return outcomes
    }

    /// Inserts a read step's new assets in one transaction once their files are durable, gives
    /// changed files' assets their new content, and remembers each file's state. Nothing for nil.
    private func commit(_ prepared: PreparedStep?, of total: Int) async throws {
        guard let prepared else { return }
        let (step, outcomes) = (prepared.files, prepared.outcomes)
        // Changed files whose asset no other file shares keep that asset.
        var keeps: [String?] = []
        for file in step {
            if let asset = file.previous?.asset, try await !files.isShared(asset, besides: file.path) { keeps.append(asset) } else { keeps.append(nil) }
        }
        let inserting = step.indices.compactMap { index -> AssetRecord? in
            guard keeps[index] == nil, case .prepared(.new(let record)) = outcomes[index] else { return nil }
            return record
        }
        try await importer.commit(inserting)

        var rows: [WatchedFileRow] = []
        var replacements: [(identifier: String, record: AssetRecord)] = []
        for (index, file) in step.enumerated() {
            switch outcomes[index] {
            case .prepared(.new(let record)):
                if let kept = keeps[index] {
                    replacements.append((kept, record))
                    rows.append(.init(path: file.path, asset: kept, state: file.state))
                } else {
                    rows.append(.init(path: file.path, asset: record.identifier, state: file.state))
                }
            case .prepared(.unchanged(let identifier)):
                if let kept = keeps[index], kept != identifier, let record = try await importer.catalog.asset(identifier) {
                    replacements.append((kept, record))
                    rows.append(.init(path: file.path, asset: kept, state: file.state))
                } else {
                    rows.append(.init(path: file.path, asset: identifier, state: file.state))
                }
            case .failed(let failure) where failure.code == .badMedia:
                // Not media, or not whole yet: remembered, so it is read again only once it changes.
                // A changed file that no longer decodes keeps its asset as it was.
                logger.debug("passed over a file in a watched folder", metadata: ["file": "\(failure.file)", "reason": "\(failure.message)"])
                rows.append(.init(path: file.path, asset: file.previous?.asset, state: file.state))
            case .failed(let failure) where failure.code == .cancelled:
                break
            case .failed(let failure):
                // Read again at its next change or rescan.
                logger.warning("could not import a file in a watched folder", metadata: ["file": "\(failure.file)", "reason": "\(failure.message)"])
            case .pairedMovie, nil:
                break
            }
        }
        try await importer.commit(replacing: replacements)
        try await files.save(rows)
        if prepared.completedAfter == total, let last = step.last {
            progress.report(ImportProgress(completed: total, total: total, file: last.path))
        }
    }
}

import Foundation
import LightboxProtocol
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `--watch`: the library follows folders of the owner's. On start it catches up with what changed
/// since it last looked (`catchUp`), then follows the kernel's change notices (`FolderEvents`):
///
/// - a file is read once it has stopped changing: closed after writing (or silent for
///   `writingTimeout`) and then quiet for `quietPeriod`;
/// - a new file is imported; a changed file keeps its asset's identifier (`Catalog.replaceContent`,
///   watchers hear `changed`); a deleted file removes its asset (`Catalog.remove`: its tokens answer
///   tokenUnknown, watchers hear `removed`) unless another watched file has the same content;
/// - a file that reappears elsewhere with the same inode, size and time was moved: its row follows it
///   and its asset keeps its identifier, whether the move happened while the picker ran or not (a
///   path found gone waits `moveWindow` before its asset is removed, so the halves of a move pair up);
/// - hidden and temporary names are passed over (`WatchedName`), links and anything but regular
///   files are never opened (`FolderListing`, `FileState`, `RegularFile`).
///
/// Memory is bounded in counts: at most `maximumPending` paths wait to settle and `eventsPerTick`
/// events are taken from the kernel at once; past either (or when the kernel's own queue
/// overflowed) the pending paths are dropped and the folders rescanned. Without inotify, or past
/// the system's watch limit, the folders are rescanned every `rescanInterval` instead.
struct LiveFolders: Sendable {
    let roots: [String]
    let importer: LibraryImporter
    let files: any WatchedFileStorage
    /// Where the owner's pages follow the imports.
    let progress: WatchedImportProgress
    let logger: Logger
    var quietPeriod: Duration = .milliseconds(300)
    /// How long a path found gone waits before its asset is removed: a move whose two halves reach
    /// the picker apart (a folder listed before its watch saw the file arrive) still pairs up.
    var moveWindow: Duration = .milliseconds(700)
    var writingTimeout: Duration = .seconds(10)
    var tick: Duration = .milliseconds(100)
    var rescanInterval: Duration = .seconds(30)
    var maximumPending = 50_000
    var eventsPerTick = 20_000
    /// Files read (and hashed) per step of a catch-up: one step's records are committed together,
    /// while the next step is read. Small enough that the last step's commit, which nothing
    /// overlaps, is short.
    static let chunk = 100

    let stopping = Stopping()

    final class Stopping: Sendable {
        let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
    }

    init(roots: [String], importer: LibraryImporter, progress: WatchedImportProgress, logger: Logger) {
        self.roots = roots
        self.progress = progress
        self.importer = importer
        self.files = importer.catalog.storage.watchedFiles
        self.logger = logger
    }

    /// Ends `run` at its next step.
    func stop() { stopping.flag.store(true, ordering: .relaxed) }
    var isStopping: Bool { stopping.isSet || Task.isCancelled }

    /// Follows the folders until `stop`.
    func run() async {
        guard !roots.isEmpty else { return }
        var state = State()
        do {
            state.events = try FolderEvents()
        } catch {
            logger.error("cannot follow the watched folders; rescanning them instead", metadata: [
                "reason": "\(error.message)", "every": "\(rescanInterval)"])
        }
        await rescan(&state)
        let clock = ContinuousClock()
        while !isStopping {
            try? await Task.sleep(for: tick)
            if let events = state.events {
                let (list, overflowed) = events.drain(limit: eventsPerTick)
                if overflowed || list.count >= eventsPerTick { state.needsRescan = true }
                for event in list where !state.needsRescan { handle(event, &state) }
            }
            let fallbackDue = (state.events == nil || state.watchLimitReached) && clock.now - state.lastRescan >= rescanInterval
            if state.needsRescan || fallbackDue {
                if state.needsRescan { logger.notice("too many changes at once in the watched folders; rescanning them") }
                await rescan(&state)
                continue
            }
            await settle(&state)
        }
    }

    /// What the loop knows between ticks.
    struct State {
        var events: FolderEvents?
        /// Each watched folder's path, by its watch.
        var watches: [Int32: String] = [:]
        /// Files with events, waiting to settle: when the last came, and whether it is still being written.
        var pending: [String: Pending] = [:]
        /// Folders deleted or moved away, waiting to settle like files.
        var vanishedFolders: [String: ContinuousClock.Instant] = [:]
        var needsRescan = false
        var watchLimitReached = false
        var lastRescan = ContinuousClock.now

        struct Pending {
            var last: ContinuousClock.Instant
            var writing: Bool
        }
    }

    // MARK: Events

    func handle(_ event: FolderEvents.Event, _ state: inout State) {
        if event.has(IN_IGNORED) {
            state.watches[event.watch] = nil
            return
        }
        guard let folder = state.watches[event.watch], !event.name.isEmpty, !WatchedName.isIgnored(event.name) else { return }
        let path = folder + "/" + event.name
        let now = ContinuousClock.now
        if event.isFolder {
            if event.has(IN_CREATE) || event.has(IN_MOVED_TO) {
                // Watched before it is listed: a file created in between is listed or notified.
                for file in watchTree(path, &state) { mark(file, writing: false, &state) }
            } else if event.has(IN_DELETE) || event.has(IN_MOVED_FROM) {
                state.vanishedFolders[path] = now
            }
            return
        }
        let writing: Bool
        if event.has(IN_CREATE) || event.has(IN_MODIFY) {
            writing = true
        } else if event.has(IN_ATTRIB) {
            writing = state.pending[path]?.writing ?? false
        } else {
            writing = false  // closed after writing, moved or deleted
        }
        mark(path, writing: writing, &state)
    }

    func mark(_ path: String, writing: Bool, _ state: inout State) {
        guard state.pending[path] != nil || state.pending.count < maximumPending else {
            state.needsRescan = true
            return
        }
        state.pending[path] = State.Pending(last: .now, writing: writing)
    }

    /// Watches `folder` and every folder below it; returns the files below it.
    func watchTree(_ folder: String, _ state: inout State) -> [String] {
        let tree: (files: [String], folders: [String])
        do {
            tree = try FolderListing.tree(below: URL(fileURLWithPath: folder, isDirectory: true))
        } catch {
            logger.warning("cannot list a watched folder", metadata: ["folder": "\(folder)", "reason": "\(error.message)"])
            return []
        }
        if let events = state.events, !state.watchLimitReached {
            for path in tree.folders {
                do {
                    state.watches[try events.watch(path)] = path
                } catch .limitReached {
                    state.watchLimitReached = true
                    logger.error("""
                        the system's limit of inotify watches is reached; the watched folders are rescanned periodically instead \
                        (raise fs.inotify.max_user_watches to follow them live)
                        """, metadata: ["watched": "\(state.watches.count)", "every": "\(rescanInterval)"])
                    break
                } catch {
                    // Gone or unreadable meanwhile: its parent's events cover it.
                    continue
                }
            }
        }
        return tree.files
    }

    // MARK: Settling

    /// Reconciles the paths that have settled.
    func settle(_ state: inout State) async {
        let now = ContinuousClock.now
        var present: [String: FileState] = [:]
        var vanished: Set<String> = []
        for (path, pending) in state.pending where now - pending.last >= quietPeriod && (!pending.writing || now - pending.last >= writingTimeout) {
            if let file = FileState.ofRegularFile(at: path) {
                present[path] = file
            } else if now - pending.last >= moveWindow {
                vanished.insert(path)
            }
        }
        let ready = Array(present.keys) + vanished
        let readyFolders = state.vanishedFolders.filter { now - $0.value >= moveWindow }.map(\.key)
        guard !ready.isEmpty || !readyFolders.isEmpty else { return }
        for path in ready { state.pending[path] = nil }
        for folder in readyFolders { state.vanishedFolders[folder] = nil }
        do {
            var rows = try await files.rows(at: ready)
            for folder in readyFolders {
                for row in try await files.rows(below: folder) where FileState.ofRegularFile(at: row.path) == nil {
                    vanished.insert(row.path)
                    rows.append(row)
                }
                if !Self.isFolder(folder), let events = state.events {
                    for (watch, path) in state.watches where path == folder || path.hasPrefix(folder + "/") {
                        events.unwatch(watch)
                        state.watches[watch] = nil
                    }
                }
            }
            // A file that arrived with no row may have been moved from a path seen gone before.
            let known = Set(rows.map(\.path))
            let arrivals = present.filter { !known.contains($0.key) }.map(\.value.inode)
            for row in try await files.rows(withInodes: arrivals) where !known.contains(row.path) && FileState.ofRegularFile(at: row.path) == nil {
                vanished.insert(row.path)
                rows.append(row)
            }
            _ = try await reconcile(present: present, vanished: vanished, rows: rows)
        } catch {
            logger.warning("could not follow a change in the watched folders; rescanning them", metadata: ["reason": "\(error)"])
            state.needsRescan = true
        }
    }

    /// Watches every folder again and compares every file with what the catalog remembers.
    func rescan(_ state: inout State) async {
        state.pending.removeAll()
        state.vanishedFolders.removeAll()
        state.needsRescan = false
        state.lastRescan = .now
        do {
            _ = try await catchUp(&state)
        } catch {
            logger.error("could not catch up with the watched folders", metadata: ["reason": "\(error)"])
        }
    }

    /// Compares every file in the folders with the catalog's rows: only new and changed files are read.
    func catchUp(_ state: inout State) async throws -> Reconciled {
        let started = ContinuousClock.now
        var present: [String: FileState] = [:]
        var rows: [WatchedFileRow] = []
        for root in roots {
            for file in watchTree(root, &state) where !WatchedName.isIgnored(path: file, below: root) {
                if let found = FileState.ofRegularFile(at: file) { present[file] = found }
            }
            rows += try await files.rows(below: root)
        }
        let vanished = Set(rows.map(\.path).filter { present[$0] == nil })
        logger.info("catching up with the watched folders", metadata: ["files": "\(present.count)", "remembered": "\(rows.count)"])
        let done = try await reconcile(present: present, vanished: vanished, rows: rows)
        logger.info("caught up with the watched folders", metadata: [
            "files": "\(present.count)", "read": "\(done.read)", "moved": "\(done.moved)", "removed": "\(done.removed)",
            "unchanged": "\(present.count - done.read - done.moved)",
            "seconds": "\(String(format: "%.3f", (ContinuousClock.now - started) / .seconds(1)))"])
        return done
    }

    static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}

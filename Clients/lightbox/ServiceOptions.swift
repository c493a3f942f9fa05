import ArgumentParser
import Foundation
import LightboxClient
import LightboxTransport

/// Where the services are and which data directory holds the keys; shared by every subcommand.
struct ServiceOptions: ParsableArguments {
    @Option(help: "Data directory with the keys (keys/, apps/). Env: LIGHTBOX_DATA.")
    var data = ProcessInfo.processInfo.environment["LIGHTBOX_DATA"] ?? "var"

    @Option(help: "lightbox-auth's endpoint. Env: LIGHTBOX_AUTH_ENDPOINT.")
    var authEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_AUTH_ENDPOINT"] ?? ServiceDirectory.defaultAuthEndpoint

    @Option(help: ArgumentHelp("""
        lightbox-picker's endpoint, or several pickers of one library separated by commas \
        (tcp://a:7712,tcp://b:7712): app commands fail over to the next when one stops answering; owner \
        commands use the first. The pickers share one service key (copy keys/picker.key and keys/picker.pub). \
        Env: LIGHTBOX_PICKER_ENDPOINT.
        """))
    var pickerEndpoint = ProcessInfo.processInfo.environment["LIGHTBOX_PICKER_ENDPOINT"] ?? ServiceDirectory.defaultPickerEndpoint

    @Option(help: "Seconds to wait for a service's answer.")
    var timeout = 10

    var directory: ServiceDirectory {
        ServiceDirectory(dataDirectory: URL(fileURLWithPath: data), authEndpoint: authEndpoint, pickerEndpoint: pickerEndpoint)
    }

    func pickerAsOwner() async throws -> OwnerSurface {
        OwnerSurface(picker: try await directory.connectToPicker(as: try directory.ownerKeyPair(), timeout: .seconds(timeout)))
    }

    func authAsOwner() async throws -> AppRegistryClient {
        AppRegistryClient(auth: try await directory.connectToAuth(as: try directory.ownerKeyPair(), timeout: .seconds(timeout)))
    }

    func settingsAsOwner() async throws -> OwnerSettings {
        OwnerSettings(auth: try await directory.connectToAuth(as: try directory.ownerKeyPair(), timeout: .seconds(timeout)))
    }

    func libraryAsApp(_ app: String) async throws -> PhotoLibrary {
        let keyPair = try appKeyPair(app)
        return PhotoLibrary(auth: try await directory.connectToAuth(as: keyPair, timeout: .seconds(timeout)),
                            picker: try await directory.connectToPickers(as: keyPair, timeout: .seconds(timeout)))
    }

    func appKeyPair(_ app: String) throws -> CurveKeyPair {
        do { return try directory.appKeyPair(app) } catch {
            throw ValidationError("No key for app \"\(app)\" in \(data)/apps/; run `lightbox app register \(app) --name …` first.")
        }
    }

    func pickerAsApp(_ app: String) async throws -> any PickerConnection {
        try await directory.connectToPickers(as: try appKeyPair(app), timeout: .seconds(timeout))
    }
}

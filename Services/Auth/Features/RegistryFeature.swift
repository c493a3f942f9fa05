import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// The registered apps: the owner registers and lists them; the picker asks whose key it saw;
/// lightbox-portal names the desktop apps it picks for.
struct RegistryFeature: Sendable {
    let registry: AppRegistry
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.on(Operations.registerApp) { _, body, _ in try await registerApp(body) }
        table.on(Operations.listApps) { _, _, _ in AppListResponse(apps: try await registry.apps()) }
        table.on(Operations.identify) { _, body, _ in try await identifyApp(body) }
        table.on(Operations.portalAnnounce) { _, body, _ in
            try await registry.announce(try DesktopAppID(validating: body.app), name: body.name)
            return Empty()
        }
    }

    func registerApp(_ body: RegisterAppRequest) async throws -> AppManifestResponse {
        let manifest = try await registry.register(body.manifest)
        logger.info("registered app", metadata: ["app": "\(manifest.id)"])
        return AppManifestResponse(manifest: manifest)
    }

    func identifyApp(_ body: IdentifyRequest) async throws -> AppManifestResponse {
        guard let app = try await registry.app(withPublicKey: body.publicKey) else {
            throw LightboxError(.notFound, "No app is registered with that key.")
        }
        return AppManifestResponse(manifest: app)
    }
}

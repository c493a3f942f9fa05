import Foundation
import GRDB
import LightboxProtocol
import LightboxTransport
import Logging

/// `lightbox-auth`: the control plane. Knows the apps (and, later, their authorization); never
/// decodes media.
public final class AuthService: Sendable {
    public struct Configuration: Sendable {
        public var dataDirectory: URL
        public var endpoint: String

        public init(dataDirectory: URL, endpoint: String) {
            self.dataDirectory = dataDirectory
            self.endpoint = endpoint
        }
    }

    public let registry: AppRegistry
    let configuration: Configuration
    let keys: KeyDirectory
    let logger: Logger

    public init(_ configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        keys = KeyDirectory(dataDirectory: configuration.dataDirectory)
        let database = try AuthDatabase.open(at: configuration.dataDirectory.appendingPathComponent("auth/auth.sqlite"))
        registry = AppRegistry(database: database)
    }

    /// Serves until `shutdown` is signalled (SIGINT/SIGTERM in the executable), then closes cleanly.
    public func run(until shutdown: ShutdownSignal) async throws {
        let serviceKeys = try keys.loadOrCreateKeyPair(KeyDirectory.authService)
        let ownerKey = try keys.loadOrCreateKeyPair(KeyDirectory.owner).publicKey
        let keys = self.keys
        let registry = self.registry
        let zap = try ZAPHandler(resolver: { publicKey in
            if publicKey == ownerKey { return .owner }
            if let picker = try? CurveKeyPair.loadPublicKey(from: keys.publicKeyURL(KeyDirectory.pickerService)), picker == publicKey {
                return .service(KeyDirectory.pickerService)
            }
            if let app = try? await registry.app(withPublicKey: publicKey) { return .app(app.id) }
            return nil
        }, logger: logger)
        let server = try RouterServer(.init(endpoint: configuration.endpoint, keyPair: serviceKeys), logger: logger) { [self] request, responder in
            await handle(request, responder)
        }
        logger.info("lightbox-auth serving", metadata: ["endpoint": "\(configuration.endpoint)", "data": "\(configuration.dataDirectory.path)"])
        await shutdown.wait()
        logger.info("lightbox-auth stopping")
        server.stop()
        await server.waitUntilStopped()
        zap.stop()
    }

    func handle(_ request: IncomingRequest, _ responder: Responder) async {
        await responder.answering(request, service: "lightbox-auth", logger: logger) {
            switch request.op {
            case .ping, .whoami:
                responder.succeed(ServiceIdentity(service: "auth", principal: request.principal.userId))
            case .registerApp:
                try request.requireOwner()
                let manifest = try await registry.register(try request.body(RegisterAppRequest.self).manifest)
                logger.info("registered app", metadata: ["app": "\(manifest.id)"])
                responder.succeed(AppManifestResponse(manifest: manifest))
            case .listApps:
                try request.requireOwner()
                responder.succeed(AppListResponse(apps: try await registry.apps()))
            case .identify:
                guard case .service = request.principal else {
                    throw LightboxError(.notAuthorized, "Only Lightbox services may identify keys.")
                }
                let key = try request.body(IdentifyRequest.self).publicKey
                guard let app = try await registry.app(withPublicKey: key) else {
                    throw LightboxError(.notFound, "No app is registered with that key.")
                }
                responder.succeed(AppManifestResponse(manifest: app))
            default:
                throw LightboxError(.unknownOp, "lightbox-auth has no operation \"\(request.op)\".")
            }
        }
    }
}

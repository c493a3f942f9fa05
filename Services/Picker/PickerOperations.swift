import LightboxProtocol
import LightboxTransport

extension PickerService {
    /// lightbox-picker's table: each declared operation (`Operations.picker`) with its handler.
    func makeOperationTable() -> OperationTable {
        var table = OperationTable(serviceName: "lightbox-picker", auditor: auditReporter)
        table.on(Operations.ping) { principal, _, _ in ServiceIdentity(service: "picker", principal: principal.userId) }
        table.on(Operations.whoami) { principal, _, _ in ServiceIdentity(service: "picker", principal: principal.userId) }
        LibraryFeature(catalog: catalog, access: access, changeFeed: changeFeed, importer: importer, auth: auth, logger: logger)
            .register(in: &table)
        PickFeature(sessions: sessions, appNames: appNames, catalog: catalog, tokens: tokens,
                    pendingPicksPerApp: configuration.pendingPicksPerApp, pickTimeout: configuration.pickTimeout, logger: logger)
            .register(in: &table)
        // Apps
        table.on(Operations.describe) { [self] in try await describe($0, $1, &$2) }
        table.streaming(Operations.load) { [self] in try await load($0, $1, &$2) }
        table.on(Operations.open) { [self] in try await open($0, $1, &$2) }
        table.on(Operations.requestImage) { [self] in try await requestImage($0, $1, &$2, access: access) }
        table.on(Operations.cancelImage) { [self] app, body, _ in try cancelImage(app, body) }
        table.streaming(Operations.requestVideo) { [self] in try await requestVideo($0, $1, &$2, access: access) }
        // The owner
        table.on(Operations.offload) { [self] _, body, _ in try await cloud.offload(try await ownedAsset(body.asset)); return Empty() }
        table.on(Operations.restore) { [self] _, body, _ in try await cloud.restore(try await ownedAsset(body.asset)); return Empty() }
        table.on(Operations.thumbnail) { [self] _, body, context in try await thumbnail(body, &context) }
        table.on(Operations.assetDetails) { [self] _, body, _ in try await assetDetails(body) }
        table.on(Operations.revoke) { [self] _, body, _ in try await revoke(body) }
        table.on(Operations.importLibrary) { [self] _, body, context in try await importLibrary(body, context) }
        table.on(Operations.ownerDelete) { [self] _, body, _ in try await ownerDelete(body) }
        return table
    }
}

import LightboxProtocol
import LightboxTransport

extension PickerService {
    /// lightbox-picker's table: each feature contributes its declared operations (`Operations.picker`).
    func makeOperationTable() -> OperationTable {
        var table = OperationTable(serviceName: "lightbox-picker", auditor: auditReporter)
        table.on(Operations.ping) { principal, _, _ in ServiceIdentity(service: "picker", principal: principal.userId) }
        table.on(Operations.whoami) { principal, _, _ in ServiceIdentity(service: "picker", principal: principal.userId) }
        LibraryFeature(catalog: catalog, access: access, changeFeed: changeFeed, importer: importer, auth: auth, logger: logger)
            .register(in: &table)
        let picks = PickFeature(sessions: sessions, appNames: appNames, catalog: catalog, tokens: tokens,
                                pendingPicksPerApp: configuration.pendingPicksPerApp, pickTimeout: configuration.pickTimeout,
                                placeSearch: places != nil, logger: logger)
        picks.register(in: &table)
        let streamer = AssetStreamer(catalog: catalog, logger: logger)
        let deliverySocket = self.deliverySocket
        let provider = ProviderFeature(tokens: tokens, catalog: catalog, renditions: renditions, cloud: cloud, streamer: streamer,
                                       fileTickets: fileTickets, deliverySocketPath: { deliverySocket.path }, renderPool: renderPool,
                                       portalRevocations: portalRevocations, logger: logger)
        provider.register(in: &table)
        PortalFeature(picks: picks, provider: provider, revocations: portalRevocations, logger: logger).register(in: &table)
        ImagesFeature(access: access, renditions: renditions, cloud: cloud, imageRequests: imageRequests).register(in: &table)
        VideosFeature(access: access, renditions: renditions, cloud: cloud, catalog: catalog, streamer: streamer).register(in: &table)
        OwnerFeature(catalog: catalog, renditions: renditions, cloud: cloud, importer: importer, watchedImports: watchedImports)
            .register(in: &table)
        EditsFeature(catalog: catalog, access: access, importer: importer, appNames: appNames, logger: logger).register(in: &table)
        return table
    }
}

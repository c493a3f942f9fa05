import LightboxProtocol
import LightboxTransport

extension PickerService {
    /// lightbox-picker's table: each declared operation (`Operations.picker`) with its handler.
    func makeOperationTable() -> OperationTable {
        var table = OperationTable(serviceName: "lightbox-picker", auditor: auditReporter)
        table.on(Operations.ping) { principal, _, _ in ServiceIdentity(service: "picker", principal: principal.userId) }
        table.on(Operations.whoami) { principal, _, _ in ServiceIdentity(service: "picker", principal: principal.userId) }
        // Apps
        table.later(Operations.pick) { [self] in try await startPick($0, $1, &$2, $3) }
        table.on(Operations.describe) { [self] in try await describe($0, $1, &$2) }
        table.streaming(Operations.load) { [self] in try await load($0, $1, &$2) }
        table.on(Operations.open) { [self] in try await open($0, $1, &$2) }
        table.on(Operations.fetchAssets) { [self] in try await fetchAssets($0, $1, &$2) }
        table.on(Operations.queryAssets) { [self] in try await queryAssets($0, $1, &$2) }
        table.on(Operations.createAsset) { [self] in try await createAsset($0, $1, &$2) }
        table.on(Operations.albums) { [self] app, _, context in try await listAlbums(app, &context) }
        table.on(Operations.createAlbum) { [self] in try await createAlbum($0, $1, &$2) }
        table.on(Operations.addToAlbum) { [self] in try await changeAlbumMembership($0, $1, adding: true, &$2) }
        table.on(Operations.removeFromAlbum) { [self] in try await changeAlbumMembership($0, $1, adding: false, &$2) }
        table.on(Operations.albumAssets) { [self] in try await albumAssets($0, $1, &$2) }
        table.on(Operations.libraryChanges) { [self] in try await libraryChanges($0, $1, &$2) }
        table.later(Operations.watchLibrary) { [self] in try await watchLibrary($0, $1, &$2, $3) }
        table.later(Operations.deleteAssets) { [self] in try await deleteAssets($0, $1, &$2, $3) }
        table.on(Operations.requestImage) { [self] in try await requestImage($0, $1, &$2) }
        table.on(Operations.cancelImage) { [self] app, body, _ in try cancelImage(app, body) }
        table.streaming(Operations.requestVideo) { [self] in try await requestVideo($0, $1, &$2) }
        table.on(Operations.imageProperties) { [self] in try await imageProperties($0, $1, &$2) }
        // The owner
        table.on(Operations.offload) { [self] _, body, _ in try await cloud.offload(try await ownedAsset(body.asset)); return Empty() }
        table.on(Operations.restore) { [self] _, body, _ in try await cloud.restore(try await ownedAsset(body.asset)); return Empty() }
        table.on(Operations.pendingPicks) { [self] _, body, _ in await pendingPicks(body) }
        table.on(Operations.listAssets) { [self] _, body, _ in try await listAssets(body) }
        table.on(Operations.thumbnail) { [self] _, body, context in try await thumbnail(body, &context) }
        table.on(Operations.assetDetails) { [self] _, body, _ in try await assetDetails(body) }
        table.on(Operations.choose) { [self] _, body, _ in try await choose(body) }
        table.on(Operations.cancelPick) { [self] _, body, _ in try await cancelPick(body) }
        table.on(Operations.revoke) { [self] _, body, _ in try await revoke(body) }
        table.on(Operations.importLibrary) { [self] _, body, context in try await importLibrary(body, context) }
        table.on(Operations.ownerDelete) { [self] _, body, _ in try await ownerDelete(body) }
        registerPortalOperations(in: &table)
        return table
    }
}

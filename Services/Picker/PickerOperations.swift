import LightboxProtocol
import LightboxTransport

extension PickerService {
    /// Every operation of lightbox-picker and who may call it; the dispatcher checks the principal
    /// before the handler runs.
    public static let operations = OperationTable<PickerService>(serviceName: "lightbox-picker", [
        .ping: .any { try await $0.identify($1, $2) },
        .whoami: .any { try await $0.identify($1, $2) },
        // Apps
        .pick: .app { try await $0.startPick($1, $2) },
        .describe: .app { try await $0.describe($1, $2) },
        .load: .app { try await $0.load($1, $2) },
        .open: .app { try await $0.open($1, $2) },
        .fetchAssets: .app { try await $0.fetchAssets($1, $2) },
        .queryAssets: .app { try await $0.queryAssets($1, $2) },
        .createAsset: .app { try await $0.createAsset($1, $2) },
        .albums: .app { try await $0.listAlbums($1, $2) },
        .createAlbum: .app { try await $0.createAlbum($1, $2) },
        .requestImage: .app { try await $0.requestImage($1, $2) },
        .cancelImage: .app { try await $0.cancelImage($1, $2) },
        .requestVideo: .app { try await $0.requestVideo($1, $2) },
        .imageProperties: .app { try await $0.imageProperties($1, $2) },
        .addToAlbum: .app { try await $0.changeAlbumMembership($1, $2) },
        .removeFromAlbum: .app { try await $0.changeAlbumMembership($1, $2) },
        .albumAssets: .app { try await $0.albumAssets($1, $2) },
        .libraryChanges: .app { try await $0.libraryChanges($1, $2) },
        .watchLibrary: .app { try await $0.watchLibrary($1, $2) },
        .deleteAssets: .app { try await $0.deleteAssets($1, $2) },
        // The owner
        .offload: .owner { try await $0.offloadOrRestore($1, $2) },
        .restore: .owner { try await $0.offloadOrRestore($1, $2) },
        .pendingPicks: .owner { try await $0.pendingPicks($1, $2) },
        .listAssets: .owner { try await $0.listAssets($1, $2) },
        .thumbnail: .owner { try await $0.thumbnail($1, $2) },
        .assetDetails: .owner { try await $0.assetDetails($1, $2) },
        .choose: .owner { try await $0.choose($1, $2) },
        .cancelPick: .owner { try await $0.cancelPick($1, $2) },
        .revoke: .owner { try await $0.revoke($1, $2) },
        .importLibrary: .owner { try await $0.importLibrary($1, $2) },
        .ownerDelete: .owner { try await $0.ownerDelete($1, $2) },
    ])
}

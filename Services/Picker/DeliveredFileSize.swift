import Foundation
import LightboxProtocol

extension PickerService {
    /// The size of the file `provider.load` will send for the first registered type: a stripped or
    /// compatible still is made now (and cached, so the load that follows reuses it). Movies and
    /// originals in the cloud tier report the original's size: transcoding or downloading to
    /// answer a description would cost more than the answer is worth.
    func deliveredFileSize(of asset: AssetRecord, _ capability: ProviderTokenStore.Capability) async throws -> Int64 {
        let representation = capability.types.first ?? asset.type
        guard asset.mediaType == .image, !asset.isInCloud,
              capability.stripping != .none || representation != asset.type else { return asset.fileSize }
        return try await renditions.withDeliverableFile(for: asset, as: representation, stripping: capability.stripping) { file in
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
            return size?.int64Value ?? 0
        }
    }
}

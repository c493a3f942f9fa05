import LightboxClient
import LightboxProtocol
import Synchronization

extension ImageManager {
    /// A 100 × 100 high-quality image of `asset` with network access allowed (an original in the cloud
    /// tier is downloaded first): its last outcome and the download progress heard on the way.
    func downloadingImage(of asset: String) async throws -> (outcome: ImageRequestOutcome?, progress: [DownloadProgress]) {
        let progress = Mutex<[DownloadProgress]>([])
        var final: ImageRequestOutcome?
        for try await outcome in requestImage(ImageRequest(asset: asset, targetWidth: 100, targetHeight: 100,
                                                           deliveryMode: .highQualityFormat, isNetworkAccessAllowed: true),
                                              progress: { step in progress.withLock { $0.append(step) } }) {
            final = outcome
        }
        return (final, progress.withLock { $0 })
    }
}

import Foundation
import LightboxProtocol
import Media

/// Movies as apps ask for them: fast and medium H.264 derivatives, the compatible H.264 version of
/// an HEVC movie, and copies without the location. Made by Services/Media on first request and
/// cached by content, so the second request for the same asset and quality streams a file.
extension PickerService {
    /// The `derivative` of the asset's (local) original, made if it is not cached yet. While it is
    /// made (or waits for a transcode slot, or for another request making it), `progress` hears
    /// how far it has got at least every `TranscodeProgressBoard.heartbeat`.
    func movieDerivative(of asset: AssetRecord, _ derivative: VideoDerivative,
                         progress: @escaping @Sendable (TranscodeProgress) -> Void) async throws -> URL {
        let original = catalog.originalURL(of: asset)
        let logger = self.logger
        let pool = renderPool
        let board = TranscodeProgressBoard.shared
        let key = "\(asset.contentHash).\(derivative.cacheKind)"
        do {
            return try await board.reporting(key, waiting: TranscodeProgress(completed: 0, total: asset.duration ?? 0), to: progress) { report in
                try await derivatives.file(hash: asset.contentHash, kind: derivative.cacheKind) { destination in
                    defer { board.remove(key) }
                    let started = ContinuousClock.now
                    try await VideoTranscoder.transcode(original, to: destination, as: derivative, blocking: pool) { encoded, duration in
                        report(TranscodeProgress(completed: encoded, total: duration))
                    }
                    let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? nil
                    logger.info("transcoded", metadata: ["asset": "\(asset.identifier)", "derivative": "\(derivative.rawValue)",
                                                         "elapsed": "\(ContinuousClock.now - started)", "bytes": "\(size ?? -1)"])
                }
            }
        } catch let error as MediaError {
            throw error.during(.prepareMovie)
        }
    }

    /// `source` (the original or a derivative of it) remuxed without what `stripping` removes.
    func movieWithout(_ stripping: MetadataStripping, of asset: AssetRecord, from source: URL, kind: String) async throws -> URL {
        let fileExtension = asset.type == .quickTimeMovie && kind == "original" ? "mov" : "mp4"
        let pool = renderPool
        do {
            return try await derivatives.file(hash: asset.contentHash, kind: "\(kind).no-\(stripping).\(fileExtension)") { destination in
                try await MovieMetadataStripper.strip(stripping, from: source, to: destination, blocking: pool)
            }
        } catch let error as MediaError {
            throw error.during(.prepareMovie)
        }
    }
}

import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// How a file reaches an app over the bus: a credit stream of chunks (`provider.load`,
/// `video.request`), ending with the file's digest.
struct AssetStreamer: Sendable {
    let catalog: Catalog
    let logger: Logger

    /// Streams a file under the client's credit; returns how the stream ended.
    func stream(_ asset: AssetRecord, file: URL, as type: UTType, credit: Int?, chunkSize: Int?, app: AppID,
                responder: Responder) async throws -> StreamOutcome {
        let chunkSize = min(max(chunkSize ?? LoadRequest.defaultChunkSize, 4096), LoadRequest.maximumChunkSize)
        let credit = min(max(credit ?? LoadRequest.defaultCredit, 1), 64)
        let outcome: StreamOutcome
        do {
            // The original as it was imported: its digest is known, and a copy damaged since fails the client's check.
            let digest = file.standardizedFileURL == catalog.originalURL(of: asset).standardizedFileURL ? asset.contentHash : nil
            outcome = try await responder.stream(file: file, credit: credit, chunkSize: chunkSize, type: type, suggestedName: asset.suggestedName,
                                                 digest: digest)
        } catch {
            logger.error("original missing", metadata: ["asset": "\(asset.identifier)", "error": "\(error)"])
            throw LightboxError(.notFound, "The original of this asset is missing from the library; the owner should re-import it.")
        }
        logger.info("load finished", metadata: ["app": "\(app)", "asset": "\(asset.identifier)", "outcome": "\(outcome)"])
        return outcome
    }
}

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
        let chunkSize = Self.chunkSize(chunkSize)
        let credit = Self.credit(credit)
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

    /// Streams the asset's original as it is, from wherever it is kept: ranged reads of the object
    /// store when it is there and not cached, else the local file. A store that does not answer is
    /// the app's `timeout`, before anything was sent or (as a failed stream) after.
    func streamOriginal(_ asset: AssetRecord, as type: UTType, credit: Int?, chunkSize: Int?, app: AppID,
                        responder: Responder) async throws -> StreamOutcome {
        let store = catalog.originalStore
        guard let source = try await store.remoteSource(of: asset.original) else {
            return try await store.withLocalFile(asset.original) { file in
                try await stream(asset, file: file, as: type, credit: credit, chunkSize: chunkSize, app: app, responder: responder)
            }
        }
        let outcome = await responder.stream(source, credit: Self.credit(credit), chunkSize: Self.chunkSize(chunkSize), type: type,
                                             suggestedName: asset.suggestedName, digest: asset.contentHash)
        logger.info("load finished", metadata: ["app": "\(app)", "asset": "\(asset.identifier)", "outcome": "\(outcome)", "from": "object store"])
        return outcome
    }

    /// The chunk size asked for, within the protocol's bounds.
    static func chunkSize(_ asked: Int?) -> Int {
        min(max(asked ?? LoadRequest.defaultChunkSize, 4096), LoadRequest.maximumChunkSize)
    }

    /// The credit granted at the start, within the service's bounds.
    static func credit(_ asked: Int?) -> Int {
        min(max(asked ?? LoadRequest.defaultCredit, 1), 64)
    }
}

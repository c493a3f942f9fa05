import Foundation
import LightboxProtocol
import LightboxTransport

/// One stored original: its path under the originals (content-addressed, `LibraryImporter.storedPath`)
/// and whether the cloud tier holds it.
struct OriginalFile: Sendable, Hashable {
    var path: String
    var isInCloud = false

    /// Throws `inCloud` for an original the cloud tier holds: an `OriginalStore` serves local
    /// originals only, and `CloudTier.localAsset` brings one back first (with the app's consent to
    /// use the network).
    func requireLocal() throws {
        guard isInCloud else { return }
        throw LightboxError(.inCloud, "This original is in the cloud tier. Ask with network access allowed to download it first.")
    }
}

extension AssetRecord {
    /// Where the asset's original is kept (for a Live Photo's `pairedMovie`, the movie's).
    var original: OriginalFile { OriginalFile(path: storedPath, isInCloud: isInCloud) }
}

/// Where the library's originals are kept: a local folder (`LocalOriginalFolder`, the default) or an
/// S3-compatible object store with a bounded local cache in front of it (`S3OriginalStore`).
///
/// An import writes each original into `Catalog.originals` first (hashing, proving it decodes), then
/// `keep`s it; only then is its catalog row committed. Whatever needs a path (decoding, transcoding,
/// `provider.open`'s descriptor) asks `withLocalFile`; a stream of the original as it is asks
/// `remoteSource` first, which reads the object store in ranges without copying it to disk.
/// Failures reach the app as `LightboxError`s: a store that does not answer is `timeout`.
protocol OriginalStore: StoredFileListing {
    /// Makes the originals just written to `Catalog.originals` (and synced there) durable in the
    /// store; returns once the store confirmed every one.
    func keep(_ originals: [OriginalFile]) async throws

    /// Runs `use` with the original as a local file, which stays while `use` runs (`inCloud` for one
    /// the cloud tier holds).
    func withLocalFile<Result: Sendable>(_ original: OriginalFile, _ use: @Sendable (URL) async throws -> Result) async throws -> Result

    /// The original's bytes read straight from the store, in ranges as a stream asks for them; nil
    /// when it is read from a local file instead (`withLocalFile`).
    func remoteSource(of original: OriginalFile) async throws -> (any ChunkSource)?

    /// Removes the original from the store (one that is not there is no error; the cloud tier's copy
    /// is the `CloudStore`'s).
    func remove(_ original: OriginalFile) async throws
}

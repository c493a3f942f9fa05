import Foundation
import LightboxProtocol

/// Where offloaded originals are kept (the cloud tier): a local folder read back at a set bandwidth
/// (`LocalCloudFolder`, the default) or a bucket or prefix of an S3-compatible store (`S3CloudStore`).
/// Each holds copies named by the original's stored path; `CloudTier` moves originals in and out in
/// an order that loses nothing if the picker stops half way (copy, commit, then remove the source).
protocol CloudStore: StoredFileListing {
    /// Copies the original at `file` into the tier as `path`; returns once the tier holds it durably.
    func store(_ path: String, from file: URL) async throws

    /// Copies `path` out of the tier into `destination` (a new file, written beside it and renamed),
    /// reporting progress and asking `isCancelled` between pieces; `paced` keeps to the tier's
    /// bandwidth (a download an app waits for), otherwise as fast as it goes (the owner's restore).
    func fetch(_ path: String, to destination: URL, paced: Bool, progress: @Sendable (DownloadProgress) -> Void,
               isCancelled: @Sendable () async -> Bool) async throws

    /// Removes `path` from the tier (one that is not there is no error).
    func remove(_ path: String) async throws
}

import Foundation
import LightboxObjectStore

/// Derived files in a bucket or prefix of an S3-compatible store (`--derived s3://…`, by default
/// `derived/` beside the originals' prefix): one streamed GET per fetch, written to disk as it
/// arrives; uploads streamed from the finished file (in parts above `S3Client.multipartThreshold`).
/// Every request is bounded by the connection's `S3Timeouts`.
struct S3DerivativeStore: DerivativeStore {
    let client: S3Client
    let location: S3Location

    func fetch(_ name: String, to destination: URL) async throws -> Bool {
        let body: ObjectBody
        do throws(ObjectStoreError) {
            body = try await client.get(bucket: location.bucket, key: location.key(name))
        } catch where error.code == .notFound {
            return false
        }
        try await body.write(to: destination)
        return true
    }

    func store(_ name: String, from file: URL) async throws {
        try await client.put(bucket: location.bucket, key: location.key(name), file: file.path)
    }

    func forEachStoredPage(modifiedBefore cutoff: Date, _ page: ([String]) async throws -> Void) async throws {
        try await client.forEachPage(under: location, modifiedBefore: cutoff, page)
    }

    func removeStored(_ name: String) async throws {
        try await client.delete(bucket: location.bucket, key: location.key(name))
    }
}

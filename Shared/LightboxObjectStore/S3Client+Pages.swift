import Foundation

extension S3Client {
    /// The names (keys without `location`'s prefix) of the objects under `location` written before
    /// `cutoff`, handed to `page` a listing page at a time: memory stays one page however many
    /// objects the store holds.
    public func forEachPage(
        under location: S3Location, modifiedBefore cutoff: Date, pageSize: Int = 1000,
        _ page: ([String]) async throws -> Void
    ) async throws {
        var token: String?
        repeat {
            let listing = try await list(bucket: location.bucket, prefix: location.prefix, maxKeys: pageSize, continuationToken: token)
            let names = listing.objects.filter { ($0.lastModified ?? .distantFuture) < cutoff }.map { String($0.key.dropFirst(location.prefix.count)) }
            if !names.isEmpty { try await page(names) }
            token = listing.continuationToken
        } while token != nil
    }
}

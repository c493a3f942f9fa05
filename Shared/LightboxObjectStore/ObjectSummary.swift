import Foundation

/// What the store says about one object (HEAD, or a listing's entry).
public struct ObjectSummary: Sendable, Equatable {
    public let key: String
    public let size: Int64
    /// The entity tag, quotes removed.
    public let etag: String?
    /// When the object was written (listings say; a HEAD's answer is not read for it).
    public let lastModified: Date?

    public init(key: String, size: Int64, etag: String?, lastModified: Date? = nil) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// One page of a ListObjectsV2 answer.
public struct ObjectListingPage: Sendable {
    public let objects: [ObjectSummary]
    /// Pass it back to read the next page; nil on the last.
    public let continuationToken: String?
}

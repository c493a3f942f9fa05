import Foundation

/// `owner.audit.summary` (owner): one app's use of the library since a time, counted from the audit
/// trail by lightbox-auth (the Privacy page's report: "opened 3 picks and received 4 photos").
public struct AuditSummaryRequest: Codable, Sendable {
    public var app: String
    /// Counts lines at or after this time.
    public var since: Date
    /// How many of the assets it read most recently to name (1–50, default 12).
    public var recentLimit: Int?
    public init(app: String, since: Date, recentLimit: Int? = nil) {
        self.app = app
        self.since = since
        self.recentLimit = recentLimit
    }

    public static let maximumRecent = 50
}

public struct AuditSummary: Codable, Sendable, Hashable {
    public var app: String
    public var since: Date
    /// Picks the app opened (`pick:opened`).
    public var picksOpened: Int
    /// Items the owner's answers to its picks delivered (`pick:answered` `delivered`).
    public var itemsReceived: Int
    /// Reads of an asset's content that were not refused (`AuditOperation.assetReads`).
    public var reads: Int
    /// The assets those reads named, most recent first, each once.
    public var recentAssets: [String]
    /// The time of the app's newest line of its own (the owner's changes not counted), whenever it was.
    public var lastAccess: Date?
    public init(app: String, since: Date, picksOpened: Int, itemsReceived: Int, reads: Int, recentAssets: [String], lastAccess: Date?) {
        self.app = app
        self.since = since
        self.picksOpened = picksOpened
        self.itemsReceived = itemsReceived
        self.reads = reads
        self.recentAssets = recentAssets
        self.lastAccess = lastAccess
    }
}

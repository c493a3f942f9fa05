/// Transcoding progress, as `progress` replies of `video.request` (fast and medium) and of
/// `provider.load` (the compatible representation of an HEVC movie): seconds of the movie encoded
/// so far, of its duration. Sent only while the derivative is made, not when it is reused; a
/// request that waits (for a transcode slot, or for another request making the same derivative)
/// gets the latest value, or `completed` 0, at least every two seconds.
public struct TranscodeProgress: Codable, Sendable, Hashable {
    /// Always `transcode` (a cloud download's progress says `download`).
    public var event: String
    public var completed: Double
    public var total: Double

    public init(completed: Double, total: Double) {
        event = "transcode"
        self.completed = completed
        self.total = total
    }

    public var fractionCompleted: Double { total > 0 ? min(1, completed / total) : 1 }
}

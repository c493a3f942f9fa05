/// A still that carries a movie: where the movie lies in the file, and the still's moment in it.
public struct MotionPhoto: Equatable, Sendable {
    public enum Layout: String, Sendable {
        case googleContainer, microVideo, samsungTrailer
    }

    public var layout: Layout
    /// The MP4's bytes in the original file.
    public var movieRange: Range<UInt64>
    /// When in the movie the still was taken (the XMP's presentation timestamp), in microseconds.
    public var presentationTimestampMicroseconds: Int64?
}

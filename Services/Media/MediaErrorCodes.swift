/// Error codes for rendering and rewriting media, beside the readers' codes in `MediaError.Code`.
extension MediaError.Code {
    /// The image is too large to decode safely (a decompression bomb, or simply too many pixels).
    public static let tooLarge = MediaError.Code(rawValue: "tooLarge")
    /// The caller asked for something impossible (a zero-sized thumbnail, a quality of 500).
    public static let invalidArgument = MediaError.Code(rawValue: "invalidArgument")
    /// The result could not be written where it was asked for.
    public static let unwritable = MediaError.Code(rawValue: "unwritable")
    /// Rendering (or an ffmpeg child process) took longer than its time limit and was stopped.
    public static let timedOut = MediaError.Code(rawValue: "timedOut")
}

/// Error codes for the ffmpeg child process (`FFmpegProcess`).
extension MediaError.Code {
    /// A tool Lightbox runs (ffmpeg, prlimit) is not installed.
    public static let toolMissing = MediaError.Code(rawValue: "toolMissing")
    /// The tool failed: the movie could not be decoded or encoded, or it ran out of memory.
    public static let toolFailed = MediaError.Code(rawValue: "toolFailed")
}

import LightboxProtocol

/// The one conversion of a media failure to what an app is told, with the failure as its cause.
/// The request boundary applies it; handlers only say what they were doing (`during(_:)`).
extension MediaError: LightboxErrorConvertible {
    public var lightboxError: LightboxError {
        let (wireCode, sentence): (ErrorCode, String) = switch work ?? .prepareAsset {
        case .prepareAsset: imageWork("prepare this asset")
        case .renderImage: imageWork("render this image")
        case .prepareMovie where self.code == .toolMissing: (.internal, "The picker cannot prepare movies: \(self.message).")
        case .prepareMovie: (.badMedia, "The picker could not prepare this movie: \(self.message).")
        case .makePosterFrame: (.badMedia, "The picker could not make a poster frame of this movie: \(self.message)")
        case .acceptAddedFile: (.badMedia, "The added file is not usable media: \(self.message)")
        case .acceptEditedFile: (.badMedia, "The edited version is not usable media: \(self.message)")
        }
        return LightboxError(wireCode, sentence, cause: self)
    }

    /// Image work stopped by its time limit is `timeout` (a smaller size may succeed); any other failure is `badMedia`.
    private func imageWork(_ work: String) -> (ErrorCode, String) {
        if code == .timedOut {
            return (.timeout, "The picker stopped trying to \(work): \(message). Ask for a smaller size.")
        }
        return (.badMedia, "The picker could not \(work): \(message)")
    }
}

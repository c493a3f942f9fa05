import Foundation
import LightboxProtocol
import Media

/// Which still and which movie of one import are one Live Photo: those that share Apple's content
/// identifier (the still's MakerNote ContentIdentifier, the movie's
/// `com.apple.quicktime.content.identifier`); else, for files without one, a still and a movie with
/// the same file-name stem in one folder whose capture times are within a second (as a camera
/// that writes IMG_0002.JPG and IMG_0002.MOV leaves them).
enum LivePhotoPairing {
    struct Candidate {
        var url: URL
        var metadata: MediaMetadata
    }

    static let stillTypes: Set<UTType> = [.jpeg, .heic]
    static let captureTolerance: TimeInterval = 1

    /// The movie of each still that has one, by the still's URL.
    static func pairs(_ candidates: [Candidate]) -> [URL: URL] {
        let stills = candidates.filter { stillTypes.contains($0.metadata.type) }
        var movies = candidates.filter { $0.metadata.mediaType == .video }
        var pairs: [URL: URL] = [:]
        func take(_ still: Candidate, _ matches: (Candidate) -> Bool) {
            guard pairs[still.url] == nil, let index = movies.firstIndex(where: matches) else { return }
            pairs[still.url] = movies.remove(at: index).url
        }
        for still in stills {
            guard let identifier = still.metadata.contentIdentifier else { continue }
            take(still) { $0.metadata.contentIdentifier == identifier }
        }
        for still in stills where still.metadata.contentIdentifier == nil {
            guard let captured = still.metadata.creationDate else { continue }
            take(still) { movie in
                guard movie.metadata.contentIdentifier == nil, let recorded = movie.metadata.creationDate else { return false }
                return stem(movie.url) == stem(still.url) && abs(recorded.timeIntervalSince(captured)) <= captureTolerance
            }
        }
        return pairs
    }

    /// The folder and the name without its extension, case-folded (IMG_0002.JPG and IMG_0002.mov).
    static func stem(_ url: URL) -> String {
        url.deletingPathExtension().path.lowercased()
    }
}

import LightboxProtocol

/// What a pick asks for, in words the owner reads on the sheet: "Demo App wants up to 3 photos or
/// videos, in order".
enum PickDescription {
    static func sentence(appName: String, _ configuration: PickerConfiguration) -> String {
        let limit = configuration.selectionLimit
        let quantity = switch limit {
        case 0: "any number of"
        case 1: "one"
        default: "up to \(limit)"
        }
        let things = noun(configuration.filter, singular: limit == 1)
        let order = configuration.selection == .ordered && limit != 1 ? ", in order" : ""
        return "\(appName) wants \(quantity) \(things)\(order)"
    }

    /// What an empty sheet says: what the app asked for, in words, and that the library has none.
    static func nothingMatches(appName: String, _ configuration: PickerConfiguration) -> String {
        guard let filter = configuration.filter else {
            return "Your library has no photos or videos yet. Import a folder on the Library page."
        }
        return "\(appName) asked for \(noun(filter, singular: false)); there are none in your library."
    }

    static func noun(_ filter: PickerFilter?, singular: Bool) -> String {
        guard let filter else { return singular ? "photo or video" : "photos or videos" }
        switch filter {
        case .images: return singular ? "photo" : "photos"
        case .videos: return singular ? "video" : "videos"
        case .livePhotos: return singular ? "Live Photo" : "Live Photos"
        case .screenshots: return singular ? "screenshot" : "screenshots"
        case .panoramas: return singular ? "panorama" : "panoramas"
        case .bursts: return singular ? "burst" : "bursts"
        case .slomoVideos: return singular ? "slow-motion video" : "slow-motion videos"
        case .timelapseVideos: return singular ? "time-lapse video" : "time-lapse videos"
        case .animatedImages: return singular ? "animated image" : "animated images"
        case .types(let types):
            // Named by the kinds they are of (what a desktop app's file chooser admits).
            let images = types.contains { $0.isImage }, videos = types.contains { $0.isMovie }
            return noun(images == videos ? nil : images ? .images : .videos, singular: singular)
        case .any(let filters): return filters.map { noun($0, singular: singular) }.joined(separator: " or ")
        case .all(let filters): return filters.map { noun($0, singular: singular) }.joined(separator: " that are ")
        case .not(let filter): return (singular ? "item" : "items") + " other than " + noun(filter, singular: false)
        }
    }
}

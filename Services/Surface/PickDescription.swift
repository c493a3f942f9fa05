import LightboxProtocol

/// What a pick asks for, in words the owner reads on the sheet ("Demo App wants up to 3 photos or
/// videos, in order"), in each language of `SurfaceStrings`.
enum PickDescription {
    static func sentence(appName: String, _ configuration: PickerConfiguration, strings: SurfaceStrings = .english) -> String {
        let limit = configuration.selectionLimit
        let quantity = switch limit {
        case 0: strings("any number of")
        case 1: strings("one")
        default: strings("up to {limit}", ["limit": "\(limit)"])
        }
        let things = noun(configuration.filter, singular: limit == 1, strings: strings)
        let order = configuration.selection == .ordered && limit != 1 ? strings(", in order") : ""
        return strings("{app} wants {quantity} {things}{order}", ["app": appName, "quantity": quantity, "things": things, "order": order])
    }

    /// What an empty sheet says: what the app asked for, in words, and that the library has none.
    static func nothingMatches(appName: String, _ configuration: PickerConfiguration, strings: SurfaceStrings = .english) -> String {
        guard let filter = configuration.filter else {
            return strings("Your library has no photos or videos yet. Import a folder on the Library page.")
        }
        return strings("{app} asked for {things}; there are none in your library.",
                       ["app": appName, "things": noun(filter, singular: false, strings: strings)])
    }

    /// What the pick's selection limits let through, in words ("Postcard Maker takes photos only,
    /// files up to 20 MB, videos up to 1:00"); nil without limits. The sheet says it over the grid,
    /// whose cells say why each one left out is.
    static func limits(appName: String, _ configuration: PickerConfiguration, strings: SurfaceStrings = .english) -> String? {
        guard let parts = configuration.limits?.summary(wording: { strings($0, $1) }), !parts.isEmpty else { return nil }
        return strings("{app} takes {limits}", ["app": appName, "limits": parts.joined(separator: strings(", "))])
    }

    static func noun(_ filter: PickerFilter?, singular: Bool, strings: SurfaceStrings = .english) -> String {
        let word = { (one: String, many: String) in strings(singular ? one : many) }
        guard let filter else { return word("photo or video", "photos or videos") }
        switch filter {
        case .images: return word("photo", "photos")
        case .videos: return word("video", "videos")
        case .livePhotos: return word("Live Photo", "Live Photos")
        case .screenshots: return word("screenshot", "screenshots")
        case .panoramas: return word("panorama", "panoramas")
        case .bursts: return word("burst", "bursts")
        case .slomoVideos: return word("slow-motion video", "slow-motion videos")
        case .timelapseVideos: return word("time-lapse video", "time-lapse videos")
        case .animatedImages: return word("animated image", "animated images")
        case .types(let types):
            // Named by the kinds they are of (what a desktop app's file chooser admits).
            let images = types.contains { $0.isImage }, videos = types.contains { $0.isMovie }
            return noun(images == videos ? nil : images ? .images : .videos, singular: singular, strings: strings)
        case .any(let filters): return filters.map { noun($0, singular: singular, strings: strings) }.joined(separator: strings(" or "))
        case .all(let filters): return filters.map { noun($0, singular: singular, strings: strings) }.joined(separator: strings(" that are "))
        case .not(let filter):
            return strings("{items} other than {things}", ["items": word("item", "items"), "things": noun(filter, singular: false, strings: strings)])
        }
    }
}

/// Which assets a pick may offer, as PHPickerFilter: leaves combined with any / all / not, and
/// beyond PHPickerFilter the types an app can open.
///
/// Wire form: a leaf is a string (`"images"`) or a list of types (`{"types":["public.jpeg"]}`);
/// combinators are objects (`{"any":["images","videos"]}`, `{"all":[…]}`, `{"not":"videos"}`).
public indirect enum PickerFilter: Hashable, Sendable, Codable, CustomStringConvertible {
    case images
    case videos
    case livePhotos
    case screenshots
    case panoramas
    case bursts
    case slomoVideos
    case timelapseVideos
    case animatedImages
    /// Assets the picker can deliver as one of these types (or a type conforming to one): the
    /// original's type, or the compatible JPEG of a HEIC or WebP still when `public.jpeg` is
    /// listed. What a desktop app's file chooser filter admits (lightbox-portal).
    case types([UTType])
    case any([PickerFilter])
    case all([PickerFilter])
    case not(PickerFilter)

    static let leaves: [String: PickerFilter] = [
        "images": .images, "videos": .videos, "livePhotos": .livePhotos, "screenshots": .screenshots,
        "panoramas": .panoramas, "bursts": .bursts, "slomoVideos": .slomoVideos,
        "timelapseVideos": .timelapseVideos, "animatedImages": .animatedImages,
    ]

    /// The most filters (leaves and combinators) one filter may hold, and the deepest it may nest:
    /// far more than any picker needs, and little enough that an app cannot make the picker
    /// recurse, or build SQL, without bound.
    public static let maximumSize = 256
    public static let maximumDepth = 32
    /// The most types one `types` leaf may list.
    public static let maximumTypes = 64

    /// Filters in this one, itself included.
    public var size: Int {
        switch self {
        case .any(let filters), .all(let filters): filters.reduce(1) { $0 + $1.size }
        case .not(let filter): 1 + filter.size
        default: 1
        }
    }

    /// Levels of nesting; a leaf is 1.
    public var depth: Int {
        switch self {
        case .any(let filters), .all(let filters): 1 + (filters.map(\.depth).max() ?? 0)
        case .not(let filter): 1 + filter.depth
        default: 1
        }
    }

    /// Why a filter is too large, if it is.
    var excess: String? {
        if depth > Self.maximumDepth { return "filters nest at most \(Self.maximumDepth) deep" }
        if size > Self.maximumSize { return "a filter holds at most \(Self.maximumSize) filters" }
        return nil
    }

    /// Why a list of types cannot be a `types` leaf, if it cannot.
    static func typesExcess(_ types: [UTType]) -> String? {
        if types.isEmpty { return "types(…) lists at least one type" }
        if types.count > maximumTypes { return "types(…) lists at most \(maximumTypes) types" }
        if let bad = types.first(where: { !UTType.isWellFormed($0.identifier) }) { return "\"\(bad.identifier.prefix(80))\" is not a type identifier" }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        // Stops the recursion early: each level of a filter is one or two levels of coding path.
        guard decoder.codingPath.count <= 2 * Self.maximumDepth + 8 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                   debugDescription: "filters nest at most \(Self.maximumDepth) deep"))
        }
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            guard let leaf = PickerFilter.leaves[name] else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath,
                    debugDescription: "unknown filter \"\(name)\"; known: \(PickerFilter.leaves.keys.sorted().joined(separator: ", "))"))
            }
            self = leaf
            return
        }
        let container = try decoder.container(keyedBy: CombinatorKey.self)
        if let types = try container.decodeIfPresent([UTType].self, forKey: .types) {
            if let excess = Self.typesExcess(types) {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: excess))
            }
            self = .types(types)
        } else if let filters = try container.decodeIfPresent([PickerFilter].self, forKey: .any) {
            self = .any(filters)
        } else if let filters = try container.decodeIfPresent([PickerFilter].self, forKey: .all) {
            self = .all(filters)
        } else if let filter = try container.decodeIfPresent(PickerFilter.self, forKey: .not) {
            self = .not(filter)
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "a filter object needs one of any, all, not, types"))
        }
        if let excess {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: excess))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .any(let filters):
            var container = encoder.container(keyedBy: CombinatorKey.self)
            try container.encode(filters, forKey: .any)
        case .all(let filters):
            var container = encoder.container(keyedBy: CombinatorKey.self)
            try container.encode(filters, forKey: .all)
        case .not(let filter):
            var container = encoder.container(keyedBy: CombinatorKey.self)
            try container.encode(filter, forKey: .not)
        case .types(let types):
            var container = encoder.container(keyedBy: CombinatorKey.self)
            try container.encode(types, forKey: .types)
        default:
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }
    }

    private enum CombinatorKey: String, CodingKey { case any, all, not, types }

    /// The text form the CLI accepts: `images`, `any(images,videos)`, `not(videos)`.
    public var description: String {
        switch self {
        case .any(let filters): "any(\(filters.map(\.description).joined(separator: ",")))"
        case .all(let filters): "all(\(filters.map(\.description).joined(separator: ",")))"
        case .not(let filter): "not(\(filter))"
        case .types(let types): "types(\(types.map(\.identifier).joined(separator: ",")))"
        default: PickerFilter.leaves.first { $0.value == self }!.key
        }
    }

    /// Parses the text form (`any(images,not(videos))`).
    public init(parsing text: String) throws {
        var parser = FilterParser(text: Substring(text.filter { !$0.isWhitespace }))
        self = try parser.parseFilter(depth: 1)
        // The parser holds the text form to `maximumDepth` and `maximumSize` as it reads.
        guard parser.text.isEmpty else { throw parser.error("unexpected \"\(parser.text)\"") }
    }

    /// Whether an asset with these traits passes the filter.
    public func matches(_ traits: AssetTraits) -> Bool {
        switch self {
        case .images: traits.mediaType == .image
        case .videos: traits.mediaType == .video
        case .livePhotos: traits.subtypes.contains(.livePhoto)
        case .screenshots: traits.subtypes.contains(.screenshot)
        case .panoramas: traits.subtypes.contains(.panorama)
        case .bursts: traits.subtypes.contains(.burst)
        case .slomoVideos: traits.subtypes.contains(.slomo)
        case .timelapseVideos: traits.subtypes.contains(.timelapse)
        case .animatedImages: traits.subtypes.contains(.animated)
        case .types(let types): traits.type.map { type in
            types.contains { listed in
                type.conforms(to: listed) || (listed == .jpeg && UTType.hasCompatibleJPEG(type, animated: traits.subtypes.contains(.animated)))
            }
        } ?? false
        case .any(let filters): filters.contains { $0.matches(traits) }
        case .all(let filters): filters.allSatisfy { $0.matches(traits) }
        case .not(let filter): !filter.matches(traits)
        }
    }
}

/// What a filter looks at: the media type, the subtypes the catalog knows and the original's type
/// (without one, no `types` leaf matches).
public struct AssetTraits: Hashable, Sendable {
    public var mediaType: MediaType
    public var subtypes: Set<MediaSubtype>
    public var type: UTType?

    public init(mediaType: MediaType, subtypes: Set<MediaSubtype> = [], type: UTType? = nil) {
        self.mediaType = mediaType
        self.subtypes = subtypes
        self.type = type
    }
}

public enum MediaType: String, Codable, Sendable, Hashable {
    case image, video
}

public enum MediaSubtype: String, Codable, Sendable, Hashable, CaseIterable {
    case livePhoto, screenshot, panorama, burst, slomo, timelapse, animated
}

private struct FilterParser {
    var text: Substring
    /// Filters read so far.
    var parsed = 0

    func error(_ message: String) -> LightboxError {
        LightboxError(.badRequest, "Bad filter: \(message). Use a name such as images or videos, or any(…), all(…), not(…), types(…).")
    }

    mutating func parseFilter(depth: Int) throws -> PickerFilter {
        guard depth <= PickerFilter.maximumDepth else { throw error("filters nest at most \(PickerFilter.maximumDepth) deep") }
        parsed += 1
        guard parsed <= PickerFilter.maximumSize else { throw error("a filter holds at most \(PickerFilter.maximumSize) filters") }
        let name = String(text.prefix { $0.isLetter })
        guard !name.isEmpty else { throw error("expected a filter name at \"\(text)\"") }
        text = text.dropFirst(name.count)
        switch name {
        case "types":
            return .types(try parseTypes())
        case "any", "all":
            let filters = try parseArguments(depth: depth)
            return name == "any" ? .any(filters) : .all(filters)
        case "not":
            let filters = try parseArguments(depth: depth)
            guard filters.count == 1 else { throw error("not(…) takes exactly one filter") }
            return .not(filters[0])
        default:
            guard let leaf = PickerFilter.leaves[name] else { throw error("unknown filter \"\(name)\"") }
            return leaf
        }
    }

    /// `(public.jpeg,public.png)` after `types`.
    mutating func parseTypes() throws -> [UTType] {
        guard text.first == "(", let close = text.firstIndex(of: ")") else { throw error("expected (type,…) after types") }
        let types = text[text.index(after: text.startIndex)..<close].split(separator: ",", omittingEmptySubsequences: false)
            .map { UTType(String($0)) }
        text = text[text.index(after: close)...]
        if let excess = PickerFilter.typesExcess(types) { throw error(excess) }
        return types
    }

    mutating func parseArguments(depth: Int) throws -> [PickerFilter] {
        guard text.first == "(" else { throw error("expected ( after a combinator") }
        text = text.dropFirst()
        var filters: [PickerFilter] = []
        while true {
            filters.append(try parseFilter(depth: depth + 1))
            if text.first == "," { text = text.dropFirst(); continue }
            if text.first == ")" { text = text.dropFirst(); return filters }
            throw error("expected , or ) at \"\(text)\"")
        }
    }
}

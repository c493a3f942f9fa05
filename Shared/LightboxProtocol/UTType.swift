/// A uniform type identifier such as `public.jpeg`, with the conformance tree PhotoKit apps rely on
/// (`public.jpeg` → `public.image` → `public.data`).
public struct UTType: WireName {
    public let identifier: String
    public init(rawValue: String) { identifier = rawValue }
    public init(_ identifier: String) { self.identifier = identifier }
    public var rawValue: String { identifier }

    public static let item = UTType("public.item")
    public static let content = UTType("public.content")
    public static let data = UTType("public.data")
    public static let image = UTType("public.image")
    public static let jpeg = UTType("public.jpeg")
    public static let png = UTType("public.png")
    public static let heif = UTType("public.heif")
    public static let heic = UTType("public.heic")
    public static let webP = UTType("org.webmproject.webp")
    public static let gif = UTType("com.compuserve.gif")
    public static let audiovisualContent = UTType("public.audiovisual-content")
    public static let movie = UTType("public.movie")
    public static let video = UTType("public.video")
    public static let mpeg4Movie = UTType("public.mpeg-4")
    public static let quickTimeMovie = UTType("com.apple.quicktime-movie")
    /// A Live Photo: a still and its movie together (PHLivePhoto's type in an item provider).
    public static let livePhoto = UTType("com.apple.live-photo")

    /// Direct parents of each known type. Unknown types conform only to themselves.
    static let parents: [UTType: [UTType]] = [
        .content: [.item],
        .data: [.item],
        .image: [.data, .content],
        .jpeg: [.image],
        .png: [.image],
        .heif: [.image],
        .heic: [.heif],
        .webP: [.image],
        .gif: [.image],
        .audiovisualContent: [.data, .content],
        .movie: [.audiovisualContent],
        .video: [.movie],
        .mpeg4Movie: [.movie],
        .quickTimeMovie: [.movie],
        .livePhoto: [.content],
    ]

    /// True when this type is `other` or one of its descendants in the conformance tree.
    public func conforms(to other: UTType) -> Bool {
        if self == other { return true }
        return (UTType.parents[self] ?? []).contains { $0.conforms(to: other) }
    }

    /// The file name extension an app would give a file of this type.
    public var preferredFilenameExtension: String? {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .heic: "heic"
        case .heif: "heif"
        case .webP: "webp"
        case .gif: "gif"
        case .mpeg4Movie: "mp4"
        case .quickTimeMovie: "mov"
        default: nil
        }
    }

    public var isImage: Bool { conforms(to: .image) }
    public var isMovie: Bool { conforms(to: .movie) }

    /// Every type of the conformance tree that conforms to `self` (itself included, known or not).
    public var knownConformingTypes: [UTType] {
        [self] + UTType.parents.keys.filter { $0 != self && $0.conforms(to: self) }.sorted { $0.identifier < $1.identifier }
    }

    /// Formats older software may not read, whose stills the picker also delivers as JPEG.
    public static let compatibleJPEGSources: [UTType] = [.heic, .webP]

    /// Whether the picker delivers a still of `type` as JPEG too: HEIC and WebP, unless animated.
    public static func hasCompatibleJPEG(_ type: UTType, animated: Bool) -> Bool {
        compatibleJPEGSources.contains(type) && !animated
    }

    /// Reverse-DNS letters, digits, `.` and `-`, up to 255: what a type identifier looks like.
    public static func isWellFormed(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.utf8.count <= 255 && identifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }
}

// The names desktop file choosers use (MIME types and file name extensions), for the types Lightbox delivers.
extension UTType {
    /// Types Lightbox stores and delivers, with their MIME types and the extensions their files carry.
    static let desktopNames: [(type: UTType, mimeTypes: [String], extensions: [String])] = [
        (.jpeg, ["image/jpeg", "image/pjpeg"], ["jpg", "jpeg", "jpe", "jfif"]),
        (.png, ["image/png"], ["png"]),
        (.heic, ["image/heic", "image/heic-sequence"], ["heic"]),
        (.heif, ["image/heif", "image/heif-sequence"], ["heif", "hif"]),
        (.webP, ["image/webp"], ["webp"]),
        (.gif, ["image/gif"], ["gif"]),
        (.mpeg4Movie, ["video/mp4", "video/x-m4v"], ["mp4", "m4v"]),
        (.quickTimeMovie, ["video/quicktime"], ["mov", "qt"]),
    ]

    /// The MIME type a file of this type is announced as (`image/jpeg`).
    public var preferredMIMEType: String? {
        Self.desktopNames.first { $0.type == self }?.mimeTypes.first
    }

    /// The type of a MIME type (case-insensitive), if Lightbox stores such files.
    public init?(mimeType: String) {
        let lowered = mimeType.lowercased()
        guard let entry = Self.desktopNames.first(where: { $0.mimeTypes.contains(lowered) }) else { return nil }
        self = entry.type
    }

    /// The type of a file name extension (case-insensitive, without the dot), if Lightbox stores such files.
    public init?(filenameExtension: String) {
        let lowered = filenameExtension.lowercased()
        guard let entry = Self.desktopNames.first(where: { $0.extensions.contains(lowered) }) else { return nil }
        self = entry.type
    }
}

import LightboxProtocol

/// What a desktop app can open, read from its file chooser filters: any image, any video, or
/// particular types Lightbox can deliver.
struct AcceptedTypes: Hashable, Sendable {
    var anyImage = false
    var anyVideo = false
    var types: Set<UTType> = []

    func accepts(_ type: UTType) -> Bool {
        types.contains(type) || (anyImage && type.isImage) || (anyVideo && type.isMovie)
    }

    var acceptsImages: Bool { anyImage || types.contains { $0.isImage } }
    var acceptsVideos: Bool { anyVideo || types.contains { $0.isMovie } }

    /// What the pick sheet shows: every photo or video the app can open, and nothing else.
    var pickerFilter: PickerFilter {
        // Particular types count where no wildcard already admits their kind.
        let particular = types.filter { !(anyImage && $0.isImage) && !(anyVideo && $0.isMovie) }.sorted { $0.identifier < $1.identifier }
        let parts = [anyImage ? PickerFilter.images : nil, anyVideo ? .videos : nil, particular.isEmpty ? nil : .types(particular)]
            .compactMap { $0 }
        return parts.count == 1 ? parts[0] : .any(parts)
    }

    /// The representation to deliver of an item that registers `registered` (in the picker's
    /// order: the original, then its compatible form): the first the app accepts. An app that
    /// takes only JPEG gets a HEIC's or WebP's compatible JPEG.
    func representation(among registered: [UTType]) -> UTType? {
        registered.first(where: accepts)
    }
}

/// How lightbox-portal answers an OpenFile request: as a pick, when every filter admits only
/// photos and videos and Lightbox can deliver something it admits; else by the desktop's own
/// backend. Lightbox must never break choosing a file that is not a photo.
enum PhotoRequest: Hashable, Sendable {
    /// A pick of at most `limit` items (0: no limit) of what `accepted` admits.
    case pick(limit: Int, accepted: AcceptedTypes)
    /// Not a photo request, for the reason given (for the log).
    case forward(String)

    init(_ options: OpenFileOptions) {
        if options.directory {
            self = .forward("it asks for a folder")
            return
        }
        if options.hasChoices {
            self = .forward("it has choices the pick sheet cannot show")
            return
        }
        // The filters offered, or the one the app set when it offers none.
        let filters = options.filters.isEmpty ? options.currentFilter.map { [$0] } ?? [] : options.filters
        guard !filters.isEmpty else {
            self = .forward("it has no filters, so any file may be chosen")
            return
        }
        var accepted = AcceptedTypes()
        for pattern in filters.flatMap(\.patterns) {
            guard let media = MediaPattern(pattern) else {
                self = .forward("its filters admit more than photos and videos (\(pattern))")
                return
            }
            switch media {
            case .anyImage: accepted.anyImage = true
            case .anyVideo: accepted.anyVideo = true
            case .type(let type): accepted.types.insert(type)
            case .otherMedia: break
            }
        }
        guard accepted.acceptsImages || accepted.acceptsVideos else {
            self = .forward("its filters admit only photo or video formats Lightbox does not keep")
            return
        }
        self = .pick(limit: options.multiple ? 0 : 1, accepted: accepted)
    }
}

/// What one filter pattern admits, when it admits only photos or videos.
enum MediaPattern: Hashable, Sendable {
    case anyImage
    case anyVideo
    /// A format Lightbox keeps.
    case type(UTType)
    /// A photo or video format Lightbox does not keep (TIFF, SVG, WebM…): it admits nothing else,
    /// and nothing Lightbox can deliver.
    case otherMedia

    /// Extensions of photo and video formats that Lightbox does not keep.
    static let otherMediaExtensions: Set<String> = [
        "tif", "tiff", "bmp", "ico", "cur", "svg", "svgz", "xpm", "xbm", "pnm", "pbm", "pgm", "ppm", "pam", "tga", "avif", "jxl",
        "jp2", "j2k", "jxr", "psd", "xcf", "ora", "dds", "exr", "hdr", "qoi", "raw", "dng", "cr2", "cr3", "nef", "nrw", "arw",
        "orf", "rw2", "raf", "pef", "srw", "webm", "mkv", "avi", "ogv", "mpg", "mpeg", "m2ts", "mts", "wmv", "flv", "3gp", "3g2",
    ]

    /// nil when the pattern may admit anything that is not a photo or video (`*`, `*.txt`, `text/plain`).
    init?(_ pattern: FileFilter.Pattern) {
        switch pattern {
        case .mimeType(let mime):
            let lowered = mime.lowercased()
            if lowered == "image/*" {
                self = .anyImage
            } else if lowered == "video/*" {
                self = .anyVideo
            } else if let type = UTType(mimeType: lowered) {
                self = .type(type)
            } else if lowered.hasPrefix("image/") || lowered.hasPrefix("video/") {
                self = .otherMedia
            } else {
                return nil
            }
        case .glob(let glob):
            guard let fileExtension = Self.fileExtension(ofGlob: glob) else { return nil }
            if let type = UTType(filenameExtension: fileExtension) {
                self = .type(type)
            } else if Self.otherMediaExtensions.contains(fileExtension) {
                self = .otherMedia
            } else {
                return nil
            }
        case .unknown:
            return nil
        }
    }

    /// The lowercased extension a glob of the form `*.ext` matches, with GTK's case-insensitive
    /// spelling (`*.[jJ][pP][gG]`) read as the extension it spells; nil for any other glob.
    static func fileExtension(ofGlob glob: String) -> String? {
        guard glob.hasPrefix("*.") else { return nil }
        var characters = Substring(glob.dropFirst(2))
        var spelled = ""
        while let next = characters.first {
            if next == "[" {
                // A class of one letter in its cases: [jJ].
                guard let close = characters.firstIndex(of: "]") else { return nil }
                let members = Set(characters[characters.index(after: characters.startIndex)..<close].lowercased())
                guard members.count == 1, let letter = members.first, letter.isLetter || letter.isNumber else { return nil }
                spelled.append(letter)
                characters = characters[characters.index(after: close)...]
            } else if next.isLetter || next.isNumber {
                spelled.append(contentsOf: next.lowercased())
                characters = characters.dropFirst()
            } else {
                return nil
            }
        }
        return spelled.isEmpty ? nil : spelled
    }
}

/// A file chooser filter as the portal sends it, `(sa(us))`: a name and its patterns, each a glob
/// (`*.jpg`, type 0) or a MIME type (`image/jpeg`, type 1).
struct FileFilter: Hashable, Sendable {
    enum Pattern: Hashable, Sendable {
        case glob(String)
        case mimeType(String)
        /// A pattern type the interface does not define; nothing is known of what it admits.
        case unknown(UInt32, String)
    }

    var name: String
    var patterns: [Pattern]

    init(name: String, patterns: [Pattern]) {
        self.name = name
        self.patterns = patterns
    }

    /// A `(sa(us))` value; nil for any other shape.
    init?(_ value: DBusValue) {
        guard value.isOfType("(sa(us))"), let name = value.child(0)?.string, let list = value.child(1) else { return nil }
        self.name = name
        patterns = list.children.compactMap { pattern in
            guard let kind = pattern.child(0)?.uint32, let text = pattern.child(1)?.string else { return nil }
            switch kind {
            case 0: return .glob(text)
            case 1: return .mimeType(text)
            default: return .unknown(kind, text)
            }
        }
    }
}

/// What lightbox-portal reads of an OpenFile request's options to decide whether it is a pick.
/// Everything else in them (accept_label, modal, choices' labels…) is for the fallback backend or
/// for nobody.
struct OpenFileOptions: Sendable {
    var multiple = false
    var directory = false
    var filters: [FileFilter] = []
    var currentFilter: FileFilter?
    /// The app asked for extra controls (`choices`) that the pick sheet does not show.
    var hasChoices = false
    /// `current_filter` as it came, to give back in the results.
    var currentFilterValue: DBusValue?

    init(multiple: Bool = false, directory: Bool = false, filters: [FileFilter] = [], currentFilter: FileFilter? = nil,
         hasChoices: Bool = false) {
        self.multiple = multiple
        self.directory = directory
        self.filters = filters
        self.currentFilter = currentFilter
        self.hasChoices = hasChoices
    }

    /// From the `a{sv}` options; an option of the wrong type counts as absent (the frontend has
    /// already checked them).
    init(_ options: DBusValue) {
        multiple = options.lookup("multiple", as: "b")?.bool ?? false
        directory = options.lookup("directory", as: "b")?.bool ?? false
        filters = options.lookup("filters", as: "a(sa(us))")?.children.compactMap(FileFilter.init) ?? []
        currentFilterValue = options.lookup("current_filter", as: "(sa(us))")
        currentFilter = currentFilterValue.flatMap(FileFilter.init)
        hasChoices = (options.lookup("choices", as: "a(ssa(ss)s)")?.count ?? 0) > 0
    }
}

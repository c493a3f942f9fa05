/// A desktop app as lightbox-portal names it: the app id xdg-desktop-portal passes to its backend
/// (a Flatpak's `org.gnome.Loupe`, a host app's from its systemd unit, or nothing for a host app
/// under 1.16), and the name the services file its picks, tokens and audit lines under
/// (`portal:org.gnome.Loupe`). Such apps have no key: only lightbox-portal's key may name them.
public struct DesktopAppID: Hashable, Sendable, CustomStringConvertible {
    /// The app id as the portal frontend gave it; empty for an app it could not name.
    public let rawValue: String

    /// What every app the services know through the portal is filed under begins with this.
    public static let prefix = "portal:"
    /// The name filed for apps without an id. An id the frontend gives has at least one dot, so
    /// it never reads `host`.
    public static let unnamed = "host"
    /// Longest id: a D-Bus name's limit.
    public static let maximumLength = 255

    /// `rawValue` if it is an app id such as xdg-desktop-portal gives (or empty): up to 255
    /// letters, digits, `.`, `_` and `-`, not beginning with a dot or dash and without `..`. Such an
    /// id is also safe as a folder name, which the portal uses it for.
    public init(validating rawValue: String) throws(LightboxError) {
        guard Self.isValid(rawValue) else {
            throw LightboxError(.badRequest, """
                "\(rawValue.prefix(80))" is not a desktop app id: use up to \(Self.maximumLength) letters, digits, dots, \
                underscores or dashes (such as org.gnome.Loupe), or none.
                """)
        }
        self.rawValue = rawValue
    }

    /// The desktop app a services-side app name stands for (`portal:org.gnome.Loupe`), if it is one.
    public init?(filedAs app: String) {
        guard app.hasPrefix(Self.prefix) else { return nil }
        let id = String(app.dropFirst(Self.prefix.count))
        guard let valid = try? DesktopAppID(validating: id == Self.unnamed ? "" : id) else { return nil }
        self = valid
    }

    static func isValid(_ id: String) -> Bool {
        guard id.utf8.count <= maximumLength else { return false }
        guard let first = id.utf8.first else { return true }
        guard first != UInt8(ascii: "."), first != UInt8(ascii: "-"), !id.contains("..") else { return false }
        return id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
    }

    /// The app name its picks, tokens and audit lines are filed under.
    public var filedAs: String { Self.prefix + (rawValue.isEmpty ? Self.unnamed : rawValue) }

    public var description: String { rawValue.isEmpty ? "(no app id)" : rawValue }

    /// The longest name the owner's pages show for a desktop app.
    public static let maximumNameLength = 200

    /// A desktop file's `Name=` as the owner's pages show it (a desktop file may say anything): one
    /// line, other white space made spaces, control and format characters removed, at most
    /// `maximumNameLength` characters; nil when nothing is left.
    public static func displayName(_ name: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if scalar.properties.isWhitespace {
                scalars.append(" ")
            } else if ![.control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned]
                .contains(scalar.properties.generalCategory) {
                scalars.append(scalar)
            }
        }
        let cleaned = String(String(scalars).trimmingCharacters(in: .whitespaces).prefix(maximumNameLength))
        return cleaned.isEmpty ? nil : cleaned
    }
}

/// `portal.pick`: a pick lightbox-portal files for a desktop app. The owner's sheet names the app
/// by `appName` (its desktop file's `Name=`); results come back as for `picker.pick`.
public struct PortalPickRequest: Codable, Sendable, Hashable {
    /// The desktop app id (may be empty).
    public var app: String
    public var appName: String?
    public var configuration: PickerConfiguration

    public init(app: String, appName: String?, configuration: PickerConfiguration) {
        self.app = app
        self.appName = appName
        self.configuration = configuration
    }
}

/// `portal.load`: `provider.load` of a token issued to a desktop app's pick.
public struct PortalLoadRequest: Codable, Sendable, Hashable {
    public var app: String
    public var token: String
    public var type: UTType?
    public var credit: Int?
    public var chunkSize: Int?

    public init(app: String, token: String, type: UTType? = nil, credit: Int? = nil, chunkSize: Int? = nil) {
        self.app = app
        self.token = token
        self.type = type
        self.credit = credit
        self.chunkSize = chunkSize
    }

    public var load: LoadRequest { LoadRequest(token: token, type: type, credit: credit, chunkSize: chunkSize) }
}

/// `portal.cancel`: the desktop app closed its request; its pick leaves the owner's sheet.
public struct PortalCancelRequest: Codable, Sendable, Hashable {
    public var app: String
    public var pick: String

    public init(app: String, pick: String) {
        self.app = app
        self.pick = pick
    }
}

/// An `event` of `portal.revocations`: the owner revoked a desktop app's items.
public struct PortalAppRevoked: Codable, Sendable, Hashable {
    /// The desktop app id (empty for apps without one).
    public var app: String

    public init(app: String) { self.app = app }
}

/// `portal.apps.announce`: a desktop app lightbox-portal is about to file a pick for, with the
/// name its desktop file gives, so the owner's privacy and activity pages can name it.
public struct PortalAppAnnouncement: Codable, Sendable, Hashable {
    public var app: String
    public var name: String

    public init(app: String, name: String) {
        self.app = app
        self.name = name
    }
}

import LightboxProtocol

/// What a delivered file loses of its metadata: the stripping a pick asked for (or the owner chose)
/// and the location the app may have, as one. From keeping everything to keeping nothing.
public enum MetadataRemoval: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The file as it is stored (a precise location, no stripping).
    case none
    /// The location on the approximate grid (`LocationAccess.gridDegrees`) and no other GPS field
    /// (altitude, speed, direction…); XMP goes whole, as for `.location`. See `EXIFLocationApproximator`.
    case approximateLocation
    /// No location (`MetadataStripping.location`).
    case location
    /// No metadata (`MetadataStripping.all`).
    case all

    /// The removal for a pick's (or owner's) stripping and the location the app was given.
    public init(stripping: MetadataStripping, location: LocationAccess) {
        switch (stripping, location) {
        case (.all, _): self = .all
        case (.location, _), (.none, .none): self = .location
        case (.none, .approximate): self = .approximateLocation
        case (.none, .precise): self = .none
        }
    }

    /// The removal a stripping alone asks for (the location left as it is).
    public init(_ stripping: MetadataStripping) {
        self.init(stripping: stripping, location: stripping == .none ? .precise : .none)
    }

    /// Whether the location leaves the file as it is, precise (`.none`) — the only removal that
    /// keeps XMP and every GPS field.
    public var keepsLocation: Bool { self == .none }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Whether `location`, read from a copy made with `removal`, is what that removal may leave of
    /// `original`'s: the approximate position without altitude, for `.approximateLocation` only.
    static func isApproximation(_ location: GeoLocation, of original: GeoLocation?, _ removal: MetadataRemoval) -> Bool {
        guard removal == .approximateLocation, let original, location.altitude == nil else { return false }
        return abs(location.latitude - LocationAccess.approximate(original.latitude)) < 1e-6
            && abs(location.longitude - LocationAccess.approximate(original.longitude)) < 1e-6
    }
}

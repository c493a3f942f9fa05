/// Where photos and movies were taken, as an app may receive it: not at all (the default), on a
/// grid of about 10 km (`approximate`), or as the file says (`precise`). An app asks for it (the
/// pick configuration's `location`, `auth.request`'s `location`); the owner's answer is what it
/// gets, never more than it asked. The owner's own surfaces always see everything.
///
/// `approximate` snaps latitude and longitude to the nearest multiple of `gridDegrees` (0.1°: about
/// 11 km north–south, and 11 km east–west at the equator, less towards the poles) and delivers no
/// altitude, speed, direction, destination, timestamp or other GPS field.
public enum LocationAccess: String, Codable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case none, approximate, precise

    /// The grid an approximate location is snapped to, in degrees of latitude and of longitude.
    public static let gridDegrees = 0.1

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// What the app gets: the owner's choice, never more than the app asked. Consent is given, not
    /// assumed: an owner who chose nothing gives none.
    public static func granted(asked: LocationAccess, chosen: LocationAccess?) -> LocationAccess {
        min(asked, chosen ?? .none)
    }

    /// `degrees` on the approximate grid: the nearest multiple of `gridDegrees`, halves away from
    /// zero (48.8566 → 48.9, 2.3522 → 2.4, -0.04 → 0).
    public static func approximate(_ degrees: Double) -> Double {
        let snapped = (degrees * 10).rounded() / 10
        return snapped == 0 ? 0 : snapped
    }
}

/// Where a photo or movie was taken, in WGS 84 signed degrees.
public struct GeoLocation: Sendable, Hashable {
    /// Degrees, north positive.
    public var latitude: Double
    /// Degrees, east positive.
    public var longitude: Double
    /// Metres above sea level (negative below it), when the file gives it.
    public var altitude: Double?

    /// Nil when the coordinates cannot be on Earth: files that carry such values are broken, and a
    /// wrong place is worse than none. (0, 0) is kept: it is what the file says.
    public init?(latitude: Double, longitude: Double, altitude: Double? = nil) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude.flatMap { $0.isFinite ? $0 : nil }
    }
}

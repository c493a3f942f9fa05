import Foundation

/// The populated place a point is in, from a table held in memory. GeoNames lists a city's
/// districts beside the city (Lisbon's parishes, Sydney's business district), so the nearest place
/// is often a district: a place reaches farther the more people live there, as a city's extent grows
/// with the square root of its population, and the point belongs to the place it is nearest to by
/// that measure (distance over the square root of the population). Places are kept in cells of one
/// degree, so a lookup reads the few cells within `maximumDistance` instead of every place.
public struct ReverseGeocoder: Sendable {
    /// A point farther than this from every place has none (a photo at sea, in a desert).
    public static let maximumDistance = 100_000.0
    static let earthRadius = 6_371_008.8
    /// A place listed without its population counts as this many people.
    static let smallestPopulation = 1000

    let places: [Place]
    /// Place indexes by cell: `(latitude + 90) * 360 + (longitude + 180)`, in whole degrees.
    let cells: [Int: [Int32]]

    public init(places: [Place]) {
        self.places = places
        var cells: [Int: [Int32]] = [:]
        for (index, place) in places.enumerated() {
            cells[Self.cell(row: Self.row(place.latitude), column: Self.column(place.longitude)), default: []].append(Int32(index))
        }
        self.cells = cells
    }

    public var count: Int { places.count }

    /// The place nearest to the point, if one is within `maximumDistance`.
    public func place(latitude: Double, longitude: Double) -> Place? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let row = Self.row(latitude), column = Self.column(longitude)
        // One degree of latitude is about 111 km everywhere; a degree of longitude shrinks towards
        // the poles, so more columns are read there.
        let degreesOfLatitude = Self.maximumDistance / (Self.earthRadius * .pi / 180)
        let rows = Int(degreesOfLatitude.rounded(.up))
        let widest = min(89.0, abs(latitude) + degreesOfLatitude)
        let columns = min(180, Int((degreesOfLatitude / cos(widest * .pi / 180)).rounded(.up)))
        var best: (index: Int32, score: Double)?
        for r in max(0, row - rows)...min(179, row + rows) {
            for offset in -columns...columns {
                let c = ((column + offset) % 360 + 360) % 360
                for index in cells[Self.cell(row: r, column: c)] ?? [] {
                    let place = places[Int(index)]
                    let distance = Self.distance(latitude, longitude, place.latitude, place.longitude)
                    guard distance <= Self.maximumDistance else { continue }
                    let score = distance / Double(max(place.population, Self.smallestPopulation)).squareRoot()
                    if score < best?.score ?? .infinity { best = (index, score) }
                }
            }
        }
        return best.map { places[Int($0.index)] }
    }

    /// Great-circle distance in metres (haversine).
    static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (latitude2 - latitude1) * radians, dLongitude = (longitude2 - longitude1) * radians
        let a = sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(latitude1 * radians) * cos(latitude2 * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }

    static func row(_ latitude: Double) -> Int { min(179, max(0, Int((latitude + 90).rounded(.down)))) }
    static func column(_ longitude: Double) -> Int { min(359, max(0, Int((longitude + 180).rounded(.down)))) }
    static func cell(row: Int, column: Int) -> Int { row * 360 + column }
}

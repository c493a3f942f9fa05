/// A populated place of the GeoNames table: where a photo taken near it is said to be.
public struct Place: Sendable, Hashable {
    /// The place's name as GeoNames gives it ("Lisbon").
    public var city: String
    /// Its country's English name ("Portugal").
    public var country: String
    /// WGS 84 signed degrees, north and east positive.
    public var latitude: Double
    public var longitude: Double
    /// People living there, as GeoNames counts them: a larger place reaches farther.
    public var population: Int

    public init(city: String, country: String, latitude: Double, longitude: Double, population: Int = 0) {
        self.city = city
        self.country = country
        self.latitude = latitude
        self.longitude = longitude
        self.population = population
    }
}

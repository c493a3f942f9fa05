import Foundation
import LightboxProtocol

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

extension XMPLocation {
    /// What a delivered file keeps in place of an XMP packet when its location may not leave as it
    /// is: with `.approximateLocation` and a position in `packet`, a packet holding only that
    /// position on the approximate grid (`exif:GPSLatitude` and `exif:GPSLongitude`, nothing else);
    /// otherwise nil, and the packet goes (XMP can say where a photo was taken in many properties,
    /// so it is never edited property by property).
    static func approximatedPacket(from packet: Data, _ removal: MetadataRemoval) -> Data? {
        approximatePosition(in: packet, removal).flatMap { replacementPacket(holding: $0) }
    }

    /// The position `packet` gives, on the approximate grid, when `removal` is `.approximateLocation`.
    static func approximatePosition(in packet: Data, _ removal: MetadataRemoval) -> GeoLocation? {
        guard removal == .approximateLocation, packet.count <= HEIFReader.maximumEXIFSize,
              let found = position(in: String(decoding: packet, as: UTF8.self)) else { return nil }
        return GeoLocation(latitude: LocationAccess.approximate(found.latitude), longitude: LocationAccess.approximate(found.longitude))
    }

    /// A whole XMP packet holding `position` (or nothing), padded with spaces inside the packet to
    /// `length` bytes when given, as XMP's own padding is; nil when it would be longer than that.
    /// For containers whose offsets depend on the packet's size (HEIC), where it replaces a packet
    /// byte for byte.
    static func replacementPacket(holding position: GeoLocation?, paddedTo length: Int? = nil) -> Data? {
        let description = position.map { position in
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
                + "<rdf:Description rdf:about=\"\" xmlns:exif=\"http://ns.adobe.com/exif/1.0/\""
                + " exif:GPSLatitude=\"\(coordinateText(position.latitude, positive: "N", negative: "S"))\""
                + " exif:GPSLongitude=\"\(coordinateText(position.longitude, positive: "E", negative: "W"))\"/>"
                + "</rdf:RDF>"
        } ?? ""
        let head = Data("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\(description)</x:xmpmeta>".utf8)
        let tail = Data("<?xpacket end=\"r\"?>".utf8)
        guard let length else { return head + tail }
        guard head.count + tail.count <= length else { return nil }
        return head + Data(repeating: 0x20, count: length - head.count - tail.count) + tail
    }

    /// Whether `packet` is one `replacementPacket` makes for `removal`: holding nothing, or (for
    /// `.approximateLocation`) a position on the grid, padded to its length.
    static func isReplacement(_ packet: Data, for removal: MetadataRemoval) -> Bool {
        let found = position(in: String(decoding: packet, as: UTF8.self))
        if let found {
            guard removal == .approximateLocation, LocationAccess.approximate(found.latitude) == found.latitude,
                  LocationAccess.approximate(found.longitude) == found.longitude else { return false }
        }
        return replacementPacket(holding: found, paddedTo: packet.count) == packet
    }

    /// Degrees as a GPSCoordinate, `DDD,MM.mmmmk`: 59.9 → `59,54.0000N`.
    static func coordinateText(_ degrees: Double, positive: String, negative: String) -> String {
        let tenThousandths = Int((abs(degrees) * 600_000).rounded())  // of a minute
        let (whole, minutes) = (tenThousandths / 600_000, tenThousandths % 600_000)
        let fraction = String(minutes % 10_000 + 10_000).dropFirst()
        return "\(whole),\(minutes / 10_000).\(fraction)\(degrees < 0 ? negative : positive)"
    }
}

extension MediaMetadata {
    /// A position only the XMP gives is the photo's location too (read after EXIF, which wins).
    mutating func applyXMPPosition(_ packet: Data) {
        guard location == nil, packet.count <= HEIFReader.maximumEXIFSize else { return }
        location = XMPLocation.position(in: String(decoding: packet, as: UTF8.self))
    }
}

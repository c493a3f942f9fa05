import LightboxProtocol

extension MetadataRemoval {
    /// Image properties (`MediaMetadata.imageProperties`) as a file delivered with this removal
    /// carries them: `{GPS}` as it is, on the approximate grid with nothing but latitude, longitude
    /// and their references, or gone; with `.all`, every metadata dictionary gone.
    public func applied(to properties: [String: JSONValue]) -> [String: JSONValue] {
        switch self {
        case .none:
            return properties
        case .approximateLocation:
            var approximated = properties
            approximated["{GPS}"] = properties["{GPS}"].flatMap(Self.approximateGPS)
            return approximated
        case .location:
            return properties.filter { $0.key != "{GPS}" }
        case .all:
            return properties.filter { !$0.key.hasPrefix("{") || $0.key == "{GIF}" || $0.key == "{WebP}" || $0.key == "{PNG}" }
        }
    }

    /// `{GPS}` reduced to the approximate position; nil when it has none (then nothing is said).
    private static func approximateGPS(_ gps: JSONValue) -> JSONValue? {
        guard case .object(let entries) = gps, case .number(let latitude)? = entries["Latitude"],
              case .number(let longitude)? = entries["Longitude"] else { return nil }
        var approximate: [String: JSONValue] = [
            "Latitude": .number(LocationAccess.approximate(latitude)),
            "Longitude": .number(LocationAccess.approximate(longitude)),
        ]
        approximate["LatitudeRef"] = entries["LatitudeRef"]
        approximate["LongitudeRef"] = entries["LongitudeRef"]
        return .object(approximate)
    }
}

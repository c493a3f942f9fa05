import Foundation
import LightboxProtocol

extension MediaMetadata {
    /// The metadata as `CGImageSourceCopyPropertiesAtIndex(source, 0, nil)` would give it on Apple
    /// platforms, so code written against ImageIO finds the keys where it expects them. Only what
    /// the file says is present; a missing key means the file does not carry it.
    ///
    /// ```
    /// "PixelWidth": 640, "PixelHeight": 480   as stored, before Orientation / Rotation
    /// "Orientation": 6                         EXIF 1–8
    /// "HasAlpha": false                        images only
    /// "ColorModel": "RGB" | "Gray" | "CMYK" | "Lab", "Depth": 8 (bits per sample)   images only
    /// "DPIWidth": 72, "DPIHeight": 72           when JFIF, pHYs or EXIF give a density
    /// "ProfileName": "Display P3"              the embedded ICC profile's description
    /// "{TIFF}": { "Make", "Model", "Orientation" }
    /// "{Exif}": { "DateTimeOriginal": "2024:06:01 12:30:45", "DateTimeDigitized", "OffsetTime",
    ///             "OffsetTimeOriginal", "OffsetTimeDigitized": "+02:00", "ExposureTime": 0.004 (s),
    ///             "FNumber": 2.8, "ISOSpeedRatings": [100] }
    /// "{GPS}":  { "Latitude": 59.9139, "LatitudeRef": "N", "Longitude": 10.7522, "LongitudeRef": "E",
    ///             "Altitude": 12, "AltitudeRef": 0 }           unsigned values with refs, as in EXIF
    /// "{GIF}" / "{WebP}":  { "FrameCount": 8, "LoopCount": 0 (forever), "DelayTime": 0.1 (s,
    ///             first frame), "Duration": 0.8 (s, all frames) }   every GIF and WebP; loop, delay
    ///             and duration for animations; WebP also "Lossless": true|false
    /// "{PNG}":  { "FrameCount", "LoopCount", "DelayTime", "Duration" }   animated PNG only
    /// "{Video}": { "Duration": 2.0 (s), "Codec": "h264", "Rotation": 90 (degrees clockwise to show),
    ///             "FrameCount": 48, "CreationDate": "2024-05-01T10:00:00Z" }   movies only
    /// ```
    ///
    /// `{Video}` and WebP's `Lossless` are Lightbox's additions (ImageIO does not open movies); a
    /// movie's make, model and location use `{TIFF}` and `{GPS}` like a photo's.
    public var imageProperties: [String: JSONValue] {
        var properties: [String: JSONValue] = [:]
        properties["PixelWidth"] = pixelWidth.map(Self.number)
        properties["PixelHeight"] = pixelHeight.map(Self.number)
        properties["Orientation"] = orientation.map(Self.number)
        properties["HasAlpha"] = hasAlpha.map(JSONValue.bool)
        properties["ColorModel"] = colorModel.map(JSONValue.string)
        properties["Depth"] = depth.map(Self.number)
        properties["DPIWidth"] = dpiWidth.map(JSONValue.number)
        properties["DPIHeight"] = dpiHeight.map(JSONValue.number)
        properties["ProfileName"] = profileName.map(JSONValue.string)
        properties["{TIFF}"] = Self.dictionary([
            "Make": cameraMake.map(JSONValue.string),
            "Model": cameraModel.map(JSONValue.string),
            "Orientation": orientation.map(Self.number),
        ])
        properties["{Exif}"] = Self.dictionary([
            "DateTimeOriginal": dateTimeOriginal.map(JSONValue.string),
            "DateTimeDigitized": dateTimeDigitized.map(JSONValue.string),
            "OffsetTime": offsetTime.map(JSONValue.string),
            "OffsetTimeOriginal": offsetTimeOriginal.map(JSONValue.string),
            "OffsetTimeDigitized": offsetTimeDigitized.map(JSONValue.string),
            "ExposureTime": exposureTime.map(JSONValue.number),
            "FNumber": fNumber.map(JSONValue.number),
            "ISOSpeedRatings": isoSpeed.map { .array([Self.number($0)]) },
        ])
        properties["{GPS}"] = location.map(Self.gpsDictionary)
        if let container = Self.animationKeys[type] {
            properties[container] = animationDictionary
        }
        if mediaType == .video {
            properties["{Video}"] = Self.dictionary([
                "Duration": duration.map(JSONValue.number),
                "Codec": codec.map(JSONValue.string),
                "Rotation": rotation.map(Self.number),
                "FrameCount": frameCount.map(Self.number),
                "CreationDate": creationDate.map { .string(Self.timestamp($0)) },
            ])
        }
        return properties
    }

    /// Where ImageIO puts a format's animation properties.
    private static let animationKeys: [UTType: String] = [.gif: "{GIF}", .webP: "{WebP}", .png: "{PNG}"]

    private var animationDictionary: JSONValue? {
        // ImageIO describes every GIF and WebP, but only animated PNGs.
        guard isAnimated || type != .png else { return nil }
        var entries: [String: JSONValue?] = ["FrameCount": frameCount.map(Self.number)]
        if isAnimated {
            entries["LoopCount"] = loopCount.map(Self.number)
            entries["DelayTime"] = firstFrameDelay.map(JSONValue.number)
            entries["Duration"] = duration.map(JSONValue.number)
        }
        if type == .webP { entries["Lossless"] = isLossless.map(JSONValue.bool) }
        return Self.dictionary(entries)
    }

    private static func gpsDictionary(_ location: GeoLocation) -> JSONValue {
        var entries: [String: JSONValue?] = [
            "Latitude": .number(abs(location.latitude)),
            "LatitudeRef": .string(location.latitude < 0 ? "S" : "N"),
            "Longitude": .number(abs(location.longitude)),
            "LongitudeRef": .string(location.longitude < 0 ? "W" : "E"),
        ]
        if let altitude = location.altitude {
            entries["Altitude"] = .number(abs(altitude))
            entries["AltitudeRef"] = number(altitude < 0 ? 1 : 0)
        }
        return dictionary(entries)!
    }

    /// An object of the entries that have a value, or nil when none has.
    private static func dictionary(_ entries: [String: JSONValue?]) -> JSONValue? {
        let present = entries.compactMapValues { $0 }
        return present.isEmpty ? nil : .object(present)
    }

    private static func number(_ value: Int) -> JSONValue { .number(Double(value)) }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

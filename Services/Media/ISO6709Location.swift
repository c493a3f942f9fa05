import Foundation

extension GeoLocation {
    /// Reads an ISO 6709 point such as QuickTime's `+59.9139+010.7522+012.000/` (latitude,
    /// longitude, optional altitude, optional `CRS…`, a closing `/`). Degrees may also be written
    /// as ±DDMM.M / ±DDDMM.M or ±DDMMSS.S / ±DDDMMSS.S, which older cameras use.
    public init?(iso6709 text: String) {
        var numbers: [(sign: Double, digits: Substring)] = []
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        while numbers.count < 3, let signCharacter = rest.first, signCharacter == "+" || signCharacter == "-" {
            rest = rest.dropFirst()
            let digits = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !digits.isEmpty else { return nil }
            numbers.append((signCharacter == "-" ? -1 : 1, digits))
            rest = rest.dropFirst(digits.count)
        }
        guard numbers.count >= 2,
              let latitude = Self.degrees(numbers[0].digits, degreeDigits: 2),
              let longitude = Self.degrees(numbers[1].digits, degreeDigits: 3) else { return nil }
        let altitude = numbers.count == 3 ? Double(numbers[2].digits).map { $0 * numbers[2].sign } : nil
        self.init(latitude: latitude * numbers[0].sign, longitude: longitude * numbers[1].sign, altitude: altitude)
    }

    /// The point as ISO 6709 text without altitude, four decimals: `+48.9000+002.3000/`.
    public var iso6709: String {
        String(format: "%+08.4f%+09.4f/", latitude, longitude)
    }

    /// The integer part's length tells the form: degrees only, degrees+minutes, or
    /// degrees+minutes+seconds (`degreeDigits` is 2 for latitude, 3 for longitude).
    private static func degrees(_ digits: Substring, degreeDigits: Int) -> Double? {
        guard let value = Double(digits) else { return nil }
        let integerDigits = digits.prefix { $0 != "." }.count
        switch integerDigits {
        case ...degreeDigits:
            return value
        case degreeDigits + 2:
            let degrees = (value / 100).rounded(.towardZero)
            return degrees + (value - degrees * 100) / 60
        case degreeDigits + 4:
            let degrees = (value / 10_000).rounded(.towardZero)
            let minutes = ((value - degrees * 10_000) / 100).rounded(.towardZero)
            return degrees + minutes / 60 + (value - degrees * 10_000 - minutes * 100) / 3600
        default:
            return nil
        }
    }
}

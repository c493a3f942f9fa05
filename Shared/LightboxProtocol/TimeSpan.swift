/// A span of time as a person writes it on a command line: a whole number and a unit, `s`, `m`,
/// `h` or `d` (`90d`, `12h`, `30m`), or `0` for none.
public struct TimeSpan: Sendable, Hashable, CustomStringConvertible {
    public let duration: Duration
    public let description: String

    public init?(_ text: String) {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        if text == "0" {
            duration = .zero
        } else if let unit = text.last, let seconds = units[unit], let count = Int64(text.dropLast()), count > 0,
                  count <= 36_500 * 86_400 / seconds {
            duration = .seconds(count * seconds)
        } else {
            return nil
        }
        description = text
    }
}

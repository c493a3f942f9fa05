/// A `Duration` in the units other interfaces take: seconds for dates, intervals and reports,
/// milliseconds for wire fields (`waitMs`) and socket options.
extension Duration {
    /// The duration in seconds, fractions included.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded toward zero.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000
    }
}

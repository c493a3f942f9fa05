import Foundation

extension Duration {
    /// The duration in seconds, fractions included (for dates and PostgreSQL intervals).
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

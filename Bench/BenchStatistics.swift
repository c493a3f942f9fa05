/// The summaries the benchmarks print.
enum BenchStatistics {
    /// The middle value (the mean of the two middle ones for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The median time in seconds of `repeats` calls, after one that warms up.
    static func medianSeconds(of repeats: Int, _ call: () async throws -> Void) async throws -> Double {
        try await call()
        var times: [Double] = []
        for _ in 0..<repeats {
            let start = ContinuousClock.now
            try await call()
            times.append((ContinuousClock.now - start).seconds)
        }
        return median(times)
    }
}

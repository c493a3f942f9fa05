import LightboxProtocol

/// Durations as the benches print them (seconds: `LightboxProtocol`'s).
extension Duration {
    var microseconds: Double { seconds * 1e6 }
}
